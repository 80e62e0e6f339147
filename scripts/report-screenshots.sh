#!/usr/bin/env bash
# Renders an HTML report in headless Chromium (Debian's package, installed here if missing) at
# desktop and phone widths, with the network closed, and fails if the page logs anything to the
# console (a blocked load under the report's content security policy is a console error) or
# refers to anything outside itself.
#
#   bash scripts/report-screenshots.sh REPORT.html OUT_DIR
#
# Writes OUT_DIR/report-desktop.png (1280 px wide) and OUT_DIR/report-phone.png (390 px wide).
set -euo pipefail
report="${1:?usage: report-screenshots.sh REPORT.html OUT_DIR}"
out="${2:?usage: report-screenshots.sh REPORT.html OUT_DIR}"
mkdir -p "$out"

if ! command -v chromium >/dev/null; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq chromium >/dev/null
fi

# Static check: no external reference of any kind (the SVG namespace URI is a name, not a load).
if grep -Eo '(src|href)="[^"#][^"]*"|url\([^)]*\)|@import' "$report" | grep -v '^href="#' | grep -q .; then
    echo "report-screenshots: $report refers to something outside itself:" >&2
    grep -Eo '(src|href)="[^"#][^"]*"|url\([^)]*\)|@import' "$report" | head >&2
    exit 1
fi

abs="$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
shoot() { # NAME WIDTH HEIGHT
    local profile log
    profile="$(mktemp -d)"
    log="$out/chromium-$1.log"
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --host-resolver-rules="MAP * ~NOTFOUND" --proxy-server="127.0.0.1:9" \
        --user-data-dir="$profile" --enable-logging=stderr --v=0 --hide-scrollbars \
        --window-size="$2,$3" --screenshot="$out/report-$1.png" "file://$abs" 2>"$log" >/dev/null || {
        echo "report-screenshots: chromium failed, see $log" >&2
        exit 1
    }
    rm -rf "$profile"
    if grep -E 'CONSOLE|Refused to|net::ERR' "$log" >/dev/null; then
        echo "report-screenshots: the page logged to the console or tried a load ($1):" >&2
        grep -E 'CONSOLE|Refused to|net::ERR' "$log" >&2
        exit 1
    fi
    echo "$out/report-$1.png"
}
shoot desktop 1280 2400
shoot phone 390 2400
echo "report-screenshots: no console output, no external resource"
