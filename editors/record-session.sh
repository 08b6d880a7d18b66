#!/usr/bin/env bash
# Records a real ptxkit lsp session into docs/lsp-session.md:
#   1. the JSON-RPC exchange of a client that opens a file with a mistake,
#      hovers on the faulty store and asks for the definition of a register;
#   2. Neovim (from editors/nvim/ptxkit.lua) in a tmux pane, showing the
#      diagnostic and the hover window, captured with tmux capture-pane, and
#      rendered to docs/lsp-neovim.png when ImageMagick's convert is there.
# Usage: editors/record-session.sh
# Needs go; part 2 needs nvim and tmux and is left out without them.
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C
tmp=$(mktemp -d)
trap 'tmux kill-session -t ptxkit-record 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/ptxkit" ./cmd/ptxkit
cp internal/lsp/testdata/kernel.ptx "$tmp/kernel.ptx"
uri="file://$tmp/kernel.ptx"

# frame BODY: one base-protocol message (Content-Length counts bytes).
frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
json_string() { # the file as a JSON string
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' "$1" | awk '{printf "%s\\n", $0}'
}
store_line=$(($(grep -n 'st.global.relaxed' "$tmp/kernel.ptx" | cut -d: -f1) - 1))
use_line=$(($(grep -n '%r2, %r1;' "$tmp/kernel.ptx" | cut -d: -f1) - 1))
# UTF-16 column of the %r1 after the emoji comment: "\tmov.u32 %r1, %tid.x; /* " is 25
# units, the emoji 2, then " */ mov.u32 %r2, " 17.
use_col=44
requests=(
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
  '{"jsonrpc":"2.0","method":"initialized","params":{}}'
  "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"languageId\":\"ptx\",\"version\":1,\"text\":\"$(json_string "$tmp/kernel.ptx")\"}}}"
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"$uri\"},\"position\":{\"line\":$store_line,\"character\":3}}}"
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/definition\",\"params\":{\"textDocument\":{\"uri\":\"$uri\"},\"position\":{\"line\":$use_line,\"character\":$use_col}}}"
  '{"jsonrpc":"2.0","id":4,"method":"shutdown"}'
  '{"jsonrpc":"2.0","method":"exit"}'
)
for r in "${requests[@]}"; do frame "$r"; done > "$tmp/in"
"$tmp/ptxkit" lsp < "$tmp/in" | tr -d '\r' | sed -E 's/Content-Length: [0-9]+/\n/g' | grep -v '^$' > "$tmp/out"
exec > docs/lsp-session.md

echo '# A recorded ptxkit lsp session'
echo
echo 'Produced by `editors/record-session.sh` from `internal/lsp/testdata/kernel.ptx` (a `.relaxed` store'
echo 'without a scope on line 23); `TMP` stands for the temporary folder of the run.'
echo
echo '## The JSON-RPC exchange'
echo
echo 'Client to server (the document text elided):'
echo
echo '```json'
for r in "${requests[@]}"; do
  printf '%s\n' "$r" | sed -E 's/"text":"([^"\\]|\\.)*"/"text":"..."/' | sed "s|$tmp|TMP|g"
done
echo '```'
echo
echo 'Server to client, in order:'
echo
echo '```json'
sed "s|$tmp|TMP|g" "$tmp/out"
echo '```'

if ! command -v nvim >/dev/null || ! command -v tmux >/dev/null; then
  exit 0
fi
cat > "$tmp/init.lua" <<LUA
dofile('$PWD/editors/nvim/ptxkit.lua').setup({ cmd = { '$tmp/ptxkit', 'lsp' } })
vim.o.number = true
vim.cmd('edit $tmp/kernel.ptx')
vim.wait(10000, function() return #vim.diagnostic.get(0) > 0 end, 20)
vim.api.nvim_win_set_cursor(0, { $((store_line + 1)), 3 })
vim.lsp.buf.hover()
LUA
HOME=$tmp XDG_CONFIG_HOME=$tmp XDG_STATE_HOME=$tmp XDG_CACHE_HOME=$tmp XDG_DATA_HOME=$tmp \
  tmux new-session -d -s ptxkit-record -x 124 -y 42 "nvim --clean -n -i NONE -c 'luafile $tmp/init.lua'"
for _ in $(seq 100); do # until the hover window shows
  sleep 0.1
  tmux capture-pane -p -t ptxkit-record | grep -q 'state space' && break
done
sleep 0.3
echo
echo '## Neovim'
echo
echo 'Neovim 0.7 with `editors/nvim/ptxkit.lua`, in a 124x42 tmux pane (`tmux capture-pane -p`): the'
echo 'diagnostic is shown at the end of line 23 (virtual text) and `vim.lsp.buf.hover()` on the store'
echo 'opens explain'"'"'s text in a floating window.'
echo
tmux capture-pane -p -t ptxkit-record | sed "s|$tmp|TMP|g" | sed -e 's/[[:space:]]*$//' > "$tmp/screen.txt"
echo '```text'
cat "$tmp/screen.txt"
echo '```'
font=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf # Debian: fonts-dejavu-core
if convert -version 2>/dev/null | grep -q ImageMagick && [[ -f $font ]]; then
  # One label per line, appended: ImageMagick 6 refuses some multi-line
  # labels, and trims leading spaces (kept as no-break spaces).
  mkdir "$tmp/png"
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    text=$(printf '%s' "$line" | sed -e 's/%/%%/g' -e 's/ /\xc2\xa0/g')
    convert -background '#1e1e1e' -fill '#d4d4d4' -font "$font" -pointsize 14 \
      label:"${text:-$(printf '\xc2\xa0')}" "$tmp/png/$(printf %03d $n).png"
  done < "$tmp/screen.txt"
  convert "$tmp"/png/*.png -background '#1e1e1e' -append -bordercolor '#1e1e1e' -border 12 -strip docs/lsp-neovim.png
  echo
  echo 'The same screen as an image (`docs/lsp-neovim.png`, rendered from the capture with ImageMagick):'
  echo
  echo '![Neovim with ptxkit lsp: the diagnostic and the hover](lsp-neovim.png)'
fi
