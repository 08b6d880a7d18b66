-- Neovim client for `ptxkit lsp` (Neovim 0.7 and later).
--
-- Put this file on 'runtimepath' as lua/ptxkit.lua (or dofile it), then:
--
--   require('ptxkit').setup()                          -- runs `ptxkit lsp` from PATH
--   require('ptxkit').setup({ cmd = { '/path/to/ptxkit', 'lsp' } })
--   require('ptxkit').setup({ target = 'sm_90a', ptx = '8.5' })  -- validate for these instead
--                                                                 -- of each file's .target/.version
--
-- Every *.ptx buffer gets filetype "ptx" and is attached to one ptxkit
-- server per directory: diagnostics, hover (K: vim.lsp.buf.hover),
-- go to definition (vim.lsp.buf.definition), references, document
-- symbols, completion (omnifunc), formatting (vim.lsp.buf.format or
-- vim.lsp.buf.formatting on 0.7), code actions and, from Neovim 0.9,
-- semantic highlighting.
local M = { cmd = { 'ptxkit', 'lsp' }, init_options = vim.empty_dict(), clients = {} }

-- start attaches buffer bufnr (default: the current one) to a ptxkit
-- server for its directory, starting one when needed, and returns the
-- client id.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local root = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':p:h')
  local config = { name = 'ptxkit', cmd = M.cmd, root_dir = root, init_options = M.init_options }
  if vim.lsp.start then -- Neovim 0.8 and later reuse a client by name and root
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = M.clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    id = vim.lsp.start_client(config)
    M.clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- setup registers the ptx filetype and starts the server for ptx buffers.
function M.setup(opts)
  opts = opts or {}
  if opts.cmd then
    M.cmd = opts.cmd
  end
  if opts.target or opts.ptx then
    M.init_options = { target = opts.target, ptx = opts.ptx }
  end
  local group = vim.api.nvim_create_augroup('ptxkit', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    group = group,
    pattern = '*.ptx',
    callback = function(args)
      vim.bo[args.buf].filetype = 'ptx'
    end,
  })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'ptx',
    callback = function(args)
      vim.bo[args.buf].omnifunc = 'v:lua.vim.lsp.omnifunc'
      M.start(args.buf)
    end,
  })
end

return M
