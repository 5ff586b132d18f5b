# Shared by scripts/serve and scripts/test: step banners and "install only what is
# missing" helpers. Sourced, not executed.

TRUNK_VERSION=0.21.14
# Trunk itself checks crates.io for updates on start-up; CI has no general internet.
export TRUNK_SKIP_VERSION_CHECK=true

banner() {
    printf '\n\033[1m==> %s\033[0m\n' "$*"
}

die() {
    printf '\033[31merror:\033[0m %s\n' "$*" >&2
    exit 1
}

# The wasm-bindgen CLI must match the library version exactly, so read it from the
# lock file rather than hard-coding it in two places.
wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

# Prints "yes" when `$1 --version` reports version `$2`.
has_version() {
    command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -qw "$2" && echo yes
}

ensure_rust_tools() {
    export PATH="$HOME/.cargo/bin:$PATH"
    command -v cargo >/dev/null || die "cargo not found: install Rust via rustup first"
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        banner "install: rustup target wasm32-unknown-unknown"
        rustup target add wasm32-unknown-unknown
    fi
    if [ -z "$(has_version trunk "$TRUNK_VERSION")" ]; then
        banner "install: trunk $TRUNK_VERSION (takes several minutes)"
        # --locked is required: trunk's newest dependencies no longer build together.
        cargo install trunk --version "$TRUNK_VERSION" --locked
    fi
    local wbg
    wbg="$(wasm_bindgen_version)"
    [ -n "$wbg" ] || die "wasm-bindgen not found in Cargo.lock"
    if [ -z "$(has_version wasm-bindgen "$wbg")" ] ||
        [ -z "$(has_version wasm-bindgen-test-runner "$wbg")" ]; then
        banner "install: wasm-bindgen-cli $wbg"
        # No --locked: wasm-bindgen-cli's lock file pins crates that fail on current rustc.
        cargo install wasm-bindgen-cli --version "$wbg" --force
    fi
}

# Installs the Debian packages (given as "command:package" pairs) whose command is
# missing; `apt-get update` runs only when something must be installed. A first
# argument `--lean` skips recommended packages (Octave's pull in a desktop).
ensure_apt() {
    local missing=() pair extra=()
    if [ "${1:-}" = --lean ]; then
        extra=(--no-install-recommends)
        shift
    fi
    for pair in "$@"; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    banner "install: apt packages ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update
    "${sudo[@]}" apt-get install -y "${extra[@]}" "${missing[@]}"
}

# binaryen's wasm-opt at the version Trunk.toml names, from npm (the Debian package is
# too old for current wasm-bindgen output). Installed under ~/.cache/shapex and put
# first on PATH, so trunk finds it instead of trying to download one.
BINARYEN_VERSION=132
ensure_binaryen() {
    local dir="${XDG_CACHE_HOME:-$HOME/.cache}/shapex/binaryen-$BINARYEN_VERSION"
    export PATH="$dir/node_modules/.bin:$PATH"
    if wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN_VERSION"; then
        return 0
    fi
    ensure_apt npm:npm
    banner "install: binaryen $BINARYEN_VERSION (wasm-opt) from npm"
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --silent "binaryen@$BINARYEN_VERSION")
    wasm-opt --version | grep -q "version $BINARYEN_VERSION" || die "wasm-opt $BINARYEN_VERSION did not install"
}

# axe-core, the accessibility checker the end-to-end test injects into the page, from
# npm at a pinned version; AXE_CORE_JS names its script for the test.
AXE_VERSION=4.11.0
ensure_axe() {
    local dir="${XDG_CACHE_HOME:-$HOME/.cache}/shapex/axe-core-$AXE_VERSION"
    export AXE_CORE_JS="$dir/node_modules/axe-core/axe.min.js"
    if [ -f "$AXE_CORE_JS" ]; then
        return 0
    fi
    ensure_apt npm:npm
    banner "install: axe-core $AXE_VERSION from npm"
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --silent "axe-core@$AXE_VERSION")
    [ -f "$AXE_CORE_JS" ] || die "axe-core $AXE_VERSION did not install"
}
