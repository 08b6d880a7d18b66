-- End-to-end check of `ptxkit lsp` with Neovim as the client, run by
-- cmd/ptxkit/lsp_nvim_test.go:
--
--   nvim --headless --clean -c 'luafile editors/nvim/e2e_test.lua'
--
-- with PTXKIT_BIN (the ptxkit binary), PTXKIT_E2E_FILE (a .ptx file with a
-- missing scope on st.global.relaxed) and PTXKIT_E2E_OUT (where the
-- results go, as JSON). It uses the configuration in editors/nvim/ptxkit.lua,
-- opens the file, waits for the diagnostic, hovers on the instruction,
-- jumps to the definition of a register, then fixes the mistake in the
-- buffer (an incremental change) and waits for the diagnostic to go.
local dir = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local result = {}

local function wait(what, cond)
  if not vim.wait(20000, cond, 20) then
    error('timed out waiting for ' .. what)
  end
end

-- find returns the 0-based line and byte column of the first match of
-- the plain text s.
local function find(s)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    local col = line:find(s, 1, true)
    if col then
      return i - 1, col - 1
    end
  end
  error('not in the buffer: ' .. s)
end

local function request(method, params)
  local responses, err = vim.lsp.buf_request_sync(0, method, params, 20000)
  if not responses then
    error(method .. ': ' .. tostring(err))
  end
  for _, r in pairs(responses) do
    if r.err or r.error then
      error(method .. ': ' .. vim.inspect(r.err or r.error))
    end
    return r.result
  end
  error(method .. ': no response')
end

local function run()
  local ptxkit = dofile(dir .. '/ptxkit.lua')
  ptxkit.setup({ cmd = { os.getenv('PTXKIT_BIN'), 'lsp' } })
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('PTXKIT_E2E_FILE')))
  result.filetype = vim.bo.filetype

  wait('the diagnostic', function()
    return #vim.diagnostic.get(0) > 0
  end)
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then
      code = d.user_data.lsp.code
    end
    table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, code = code })
  end

  -- Hover on the store's opcode.
  local line, col = find('st.global.relaxed')
  vim.api.nvim_win_set_cursor(0, { line + 1, col + 1 })
  local hover = request('textDocument/hover', vim.lsp.util.make_position_params())
  result.hover = hover and hover.contents and hover.contents.value

  -- Jump to the definition of %r1 after the comment with an emoji.
  line, col = find('%r2, %r1;')
  vim.api.nvim_win_set_cursor(0, { line + 1, col + 6 })
  local locs = request('textDocument/definition', vim.lsp.util.make_position_params())
  vim.lsp.util.jump_to_location(locs[1], 'utf-16')
  local cur = vim.api.nvim_win_get_cursor(0)
  result.definition = { row = cur[1], col = cur[2], line = vim.api.nvim_get_current_line() }

  -- Fix the mistake in the buffer: the change goes to the server
  -- incrementally, and the diagnostic goes away.
  line, col = find('.relaxed')
  vim.api.nvim_buf_set_text(0, line, col + #'.relaxed', line, col + #'.relaxed', { '.gpu' })
  wait('the diagnostics to clear', function()
    return #vim.diagnostic.get(0) == 0
  end)
  result.after_fix = #vim.diagnostic.get(0)
end

local ok, err = pcall(run)
if not ok then
  result.error = tostring(err)
end
local f = assert(io.open(os.getenv('PTXKIT_E2E_OUT'), 'w'))
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd('qa!')
