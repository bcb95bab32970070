#!/bin/sh
# The README's set-up, as a new user meets it: a fresh Debian 12 (bookworm, debootstrap's
# minbase) with only Rust added, a copy of this checkout, then the README's commands as written:
# `examples/run_demo.sh` (which installs what it misses through tests/install_deps.sh, builds
# and runs the demo) and the test command's install step (`tests/install_deps.sh`, after which
# nothing may be missing). A machine that was prepared by hand (say, with libclang installed
# for some other reason) cannot hide a missing install step here.
#
#   tests/fresh_machine.sh           # needs root (debootstrap, chroot, mounts) and the network
#                                    # to Debian's archive and crates.io
#
# Rust comes from this machine: the active toolchain's directory (`rustc --print sysroot`) is
# mounted read-only at the same path, as if rustup had installed it there; cargo's home is
# fresh, so crates are downloaded as on a new machine.
#
# Environment: EPMPI_FRESH_DIR (work directory, default /var/tmp/epmpi-fresh; the bootstrapped
# base is kept there under base/ and reused, every run starts from a new copy of it),
# EPMPI_DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -eu
cd "$(dirname "$0")/.."
repo="$PWD"
if [ "$(id -u)" -ne 0 ]; then
    # debootstrap, chroot and mount need root: through sudo when it asks no password.
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        exec sudo -n env PATH="$PATH" EPMPI_FRESH_DIR="${EPMPI_FRESH_DIR:-}" \
            EPMPI_DEBIAN_MIRROR="${EPMPI_DEBIAN_MIRROR:-}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
            CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" "$repo/tests/fresh_machine.sh" "$@"
    fi
    echo "tests/fresh_machine.sh: needs root or password-less sudo (debootstrap, chroot, mount)" >&2
    exit 2
fi
work="${EPMPI_FRESH_DIR:-/var/tmp/epmpi-fresh}"
[ -n "$work" ] || work=/var/tmp/epmpi-fresh
mirror="${EPMPI_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
sysroot="$(rustc --print sysroot)"
command -v debootstrap >/dev/null 2>&1 || {
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}

base="$work/base"
# The base is rebuilt when the way it is made changes (this line is its fingerprint).
recipe="minbase bookworm +libclang-cpp14 $mirror"
if [ "$(cat "$base/.epmpi-recipe" 2>/dev/null)" != "$recipe" ]; then
    echo "fresh_machine: bootstrapping Debian 12 minbase into $base"
    rm -rf "$base"
    mkdir -p "$work/debs"
    # libclang-cpp14 is there as on the Debian 12 images of the development machines, which
    # ship clang's C++ library without libclang itself: an install step that takes one for the
    # other fails here, as it did for new users.
    debootstrap --variant=minbase --include=libclang-cpp14 --cache-dir="$work/debs" \
        bookworm "$base" "$mirror" >"$work/debootstrap.log" 2>&1 \
        || { tail -20 "$work/debootstrap.log"; exit 1; }
    # What a Debian 12 installation lists besides the main suite.
    cat >"$base/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
    echo "$recipe" >"$base/.epmpi-recipe"
fi

root="$work/root"
cleanup() {
    for m in "$root$sysroot" "$root/sys" "$root/proc" "$root/dev"; do
        mountpoint -q "$m" 2>/dev/null && umount -R "$m"
    done
    rm -rf "$root"
}
cleanup
trap cleanup EXIT INT TERM
cp -a "$base" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/hosts "$root/etc/hosts"
# The site's own certificate authorities (a proxy that inspects HTTPS, as on the development
# machines) belong to the network, not to the project: the fresh machine trusts them too, once
# the install step brings ca-certificates (whose set-up reads this directory).
if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
# /dev with its submounts (/dev/shm: MPI's shared memory), /proc and /sys (mpirun, hwloc).
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mkdir -p "$root$sysroot"
mount --bind "$sysroot" "$root$sysroot"
mount -o remount,bind,ro "$root$sysroot"

# The checkout as git sees it (tracked and new files; nothing ignored, so no target/).
mkdir -p "$root/root/epmpi"
git ls-files -z --cached --others --exclude-standard \
    | tar -C "$repo" --null --ignore-failed-read -T - -cf - 2>/dev/null \
    | tar -C "$root/root/epmpi" -xf -

in_chroot() {
    chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH="$sysroot/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        CARGO_HOME=/root/.cargo /bin/sh -c "cd /root/epmpi && $1"
}
echo "fresh_machine: libclang files before the install step: $(in_chroot 'cd /usr/lib/llvm-14/lib 2>/dev/null && echo libclang*.so*')"
echo "fresh_machine: examples/run_demo.sh"
in_chroot "examples/run_demo.sh" >"$work/demo.log" 2>&1 || { tail -40 "$work/demo.log"; echo "fresh_machine: FAILED: examples/run_demo.sh (log: $work/demo.log)"; exit 1; }
grep -q "^xios_demo: VERIFIED" "$work/demo.log" || { tail -20 "$work/demo.log"; echo "fresh_machine: FAILED: the demo did not verify its output"; exit 1; }
grep "^xios_demo: VERIFIED" "$work/demo.log"
echo "fresh_machine: tests/install_deps.sh (the test command's install step)"
in_chroot "tests/install_deps.sh" >"$work/deps.log" 2>&1 || { cat "$work/deps.log"; echo "fresh_machine: FAILED: tests/install_deps.sh"; exit 1; }
missing="$(in_chroot 'tests/install_deps.sh --print')"
[ -z "$missing" ] || { echo "fresh_machine: FAILED: still missing after the install step: $missing"; exit 1; }
echo "fresh_machine: passed"
