#!/usr/bin/env bash
# Makes WenQuanYiMicroHei-GB2312.ttf: WenQuanYi Micro Hei (Debian's fonts-wqy-microhei
# 0.2.0-beta-3.1, face 0 of wqy-microhei.ttc) cut down to GB 2312's 6,763 hanzi, kana, CJK and
# full-width punctuation, CJK radicals, Latin-1, general punctuation, arrows, mathematical operators
# and geometric shapes, without hinting. Needs `apt install fonts-wqy-microhei` and
# `pip install fonttools==4.55.0`.
set -euo pipefail
cd "$(dirname "$0")"
chars=$(mktemp)
python3 - "$chars" <<'PY'
import sys
hanzi = set()
for hi in range(0xB0, 0xF8):
    for lo in range(0xA1, 0xFF):
        try:
            hanzi.add(bytes([hi, lo]).decode("gb2312"))
        except UnicodeDecodeError:
            pass
assert len(hanzi) == 6763, len(hanzi)
open(sys.argv[1], "w").write("".join(sorted(hanzi)))
PY
pyftsubset /usr/share/fonts/truetype/wqy/wqy-microhei.ttc --font-number=0 --text-file="$chars" \
    --unicodes="U+0020-007E,U+00A0-00FF,U+2000-206F,U+2190-21FF,U+2200-22FF,U+25A0-25FF,U+2E80-2EFF,U+3000-303F,U+3040-30FF,U+FF00-FFEF" \
    --no-hinting --desubroutinize --output-file=WenQuanYiMicroHei-GB2312.ttf
rm -f "$chars"
