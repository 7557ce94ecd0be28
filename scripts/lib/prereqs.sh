# Shared checks for .ci/run and scripts/test: what the builds need, detected the way the
# builds themselves look for it. Source this file; it defines functions only.

# True when bindgen (through clang-sys) can use libclang. clang-sys looks for `libclang.so`
# and `libclang-<version>.so` (and `.so.<n>` forms), never `libclang-cpp`, which Debian
# ships on its own (libclang-cpp14) and which bindgen cannot use. We ask for the unversioned
# development link (`libclang.so` / `libclang-14.so`, from libclang-dev): the runtime
# library alone (libclang1-14) comes without clang's own headers, which bindgen needs too.
have_libclang() {
  local pattern='^libclang(-[0-9][0-9.]*)?\.so$' dir f
  for dir in ${LIBCLANG_PATH:-} /usr/lib/llvm-*/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    [ -d "$dir" ] || continue
    for f in "$dir"/libclang*.so*; do
      [ -e "$f" ] || continue
      if [[ "$(basename "$f")" =~ $pattern ]]; then return 0; fi
    done
  done
  if command -v ldconfig >/dev/null 2>&1; then
    ldconfig -p 2>/dev/null | awk '{print $1}' | grep -Eq "$pattern" && return 0
  fi
  return 1
}

# True when the `impersonate` feature (wreq on BoringSSL) can build: cmake and libclang.
can_build_impersonate() {
  command -v cmake >/dev/null 2>&1 && have_libclang
}

# The Debian packages the build and the tests need that this machine lacks (one per line).
missing_packages() {
  command -v ip >/dev/null 2>&1 || echo iproute2
  command -v unshare >/dev/null 2>&1 || echo util-linux
  # Store-fault tests: setpriv runs trawl as nobody (a read-only store); mount makes a small
  # tmpfs in a private mount namespace (a full disk).
  command -v setpriv >/dev/null 2>&1 || echo util-linux
  command -v mount >/dev/null 2>&1 || echo mount
  command -v python3 >/dev/null 2>&1 || echo python3
  command -v git >/dev/null 2>&1 || echo git
  # scripts/compat puts trawl behind a TLS proxy whose certificate openssl makes.
  command -v openssl >/dev/null 2>&1 || echo openssl
  # The impersonate feature (wreq on BoringSSL) builds with cmake and bindgen.
  command -v cmake >/dev/null 2>&1 || echo cmake
  have_libclang || echo libclang-dev
  # The shared-store tests start their own redis-server (never the system service).
  command -v redis-server >/dev/null 2>&1 || echo redis-server
  # The rendering tier's tests drive Debian's headless chromium.
  command -v chromium >/dev/null 2>&1 || echo chromium
  # OCR's tests run Debian's tesseract with its English traineddata.
  command -v tesseract >/dev/null 2>&1 || echo tesseract-ocr
  [ -n "$(ls /usr/share/tesseract-ocr/*/tessdata/eng.traineddata 2>/dev/null)" ] || echo tesseract-ocr-eng
}

# Installs what missing_packages lists, with apt-get (as root, or through sudo when it
# needs no password). Says what it installs; fails when it cannot.
install_missing_packages() {
  local need
  need=$(missing_packages | tr '\n' ' ')
  [ -n "${need// /}" ] || return 0
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "missing Debian packages: $need(run as root: apt-get install $need)" >&2
      return 1
    fi
  fi
  echo "installing Debian packages: $need" >&2
  # shellcheck disable=SC2086
  "${sudo[@]}" apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq $need >/dev/null
}
