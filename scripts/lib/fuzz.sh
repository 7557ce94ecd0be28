# Shared by scripts/fuzz-replay and scripts/fuzz-smoke. Source this file.

# cargo-fuzz needs -Z flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain take them.
export RUSTC_BOOTSTRAP=1

ensure_cargo_fuzz() {
  if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked
  fi
}
