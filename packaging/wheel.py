#!/usr/bin/env python3
"""Write a Python wheel that carries the compiled `trawl` binary, the way ruff and uv ship:
the binary is the wheel's one script (`trawl-VERSION.data/scripts/trawl`), so `pip install`,
`pipx install` and `uvx` put it on the PATH. No Python code is involved at run time.

    wheel.py BINARY VERSION OUT_DIR [TAG]      prints the wheel's path

The platform tag of a Linux binary is read off it, never assumed: `manylinux_2_N_ARCH`
where N is the newest glibc symbol version it needs and every shared library it links is
one the manylinux policy allows (PEP 600); `musllinux_1_2_ARCH` for a static or musl
binary (PEP 656); `linux_ARCH` otherwise (pip installs that only on the machine kind it was
built for, and says so). TAG is given for other systems (`macosx_11_0_universal2`). Written with the standard library alone
(zipfile, hashlib), so packaging needs no build tool beyond Python.
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile

# PEP 600 / PEP 513: the libraries a manylinux wheel may link from the system.
MANYLINUX_LIBS = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
    "libgcc_s.so.1", "libstdc++.so.6", "libutil.so.1", "libcrypt.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
ARCHES = {"Advanced Micro Devices X86-64": "x86_64", "AArch64": "aarch64"}


def elf(binary, flag):
    return subprocess.run(["readelf", flag, "--wide", binary], check=True,
                          capture_output=True, text=True).stdout


def platform_tag(binary):
    header = elf(binary, "-h")
    machine = re.search(r"Machine:\s+(.+)", header).group(1).strip()
    arch = ARCHES.get(machine)
    if arch is None:
        sys.exit(f"wheel.py: no wheel tag for an ELF of machine {machine!r}")
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", elf(binary, "-d")))
    interpreter = re.search(r"program interpreter: ([^\]]+)\]", elf(binary, "-l"))
    if not needed or (interpreter and "ld-musl" in interpreter.group(1)):
        return f"musllinux_1_2_{arch}"
    versions = re.findall(r"GLIBC_2\.(\d+)", elf(binary, "-V"))
    newest = max((int(v) for v in versions), default=17)
    outside = sorted(needed - MANYLINUX_LIBS)
    if outside:
        print(f"wheel.py: links {', '.join(outside)}, outside the manylinux policy: "
              f"tagged linux_{arch}", file=sys.stderr)
        return f"linux_{arch}"
    return f"manylinux_2_{max(newest, 17)}_{arch}"


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main():
    binary, version, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    tag = sys.argv[4] if len(sys.argv) > 4 else platform_tag(binary)
    name = "trawl"
    dist_info = f"{name}-{version}.dist-info"
    data = f"{name}-{version}.data"
    with open(binary, "rb") as f:
        program = f.read()
    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8").read()
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        "Summary: Self-hosted web search and page reader for AI agents, in one binary.",
        "Home-page: https://github.com/trawl-dev/trawl",
        "License: MIT OR Apache-2.0",
        "Keywords: search,web,reader,mcp,agents",
        "Classifier: Environment :: Console",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: Rust",
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ])
    wheel = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: trawl packaging/wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: py3-none-{tag}",
        "",
    ])
    files = [
        (f"{data}/scripts/{name}", program, 0o755),
        (f"{dist_info}/METADATA", metadata.encode(), 0o644),
        (f"{dist_info}/WHEEL", wheel.encode(), 0o644),
    ]
    record_lines = [f"{path},{record_hash(body)},{len(body)}" for path, body, _ in files]
    record_lines.append(f"{dist_info}/RECORD,,")
    files.append((f"{dist_info}/RECORD", ("\n".join(record_lines) + "\n").encode(), 0o644))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}-{version}-py3-none-{tag}.whl")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for arcname, body, mode in files:
            info = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, body)
    print(path)


if __name__ == "__main__":
    main()
