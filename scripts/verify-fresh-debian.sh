#!/usr/bin/env bash
# Check the README's first code block on a bare Debian 12 (debootstrap --variant=minbase): copy
# this checkout (tracked and untracked files, minus .gitignore'd ones such as build/) into a
# fresh root and run each command there as root, timing it. Needs root and debootstrap on the
# host. Usage:
#
#   scripts/verify-fresh-debian.sh [LINE...]     LINE: 1, 2, both (default) or ci (.ci/run,
#                                                with CI=true, no stdin)
#
#   VERIFY_ROOT=/tmp/deb-root                    the chroot (recreated from the tarball per run)
#   VERIFY_PRISTINE=/tmp/deb-root-pristine.tar   pristine root; made with debootstrap if absent
#   VERIFY_MIRROR=http://deb.debian.org/debian
#   VERIFY_FRESH_EACH=1                          restore the pristine root before every line
#                                                (default: once, so line 2 reuses line 1's setup)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="$PWD"
ROOT="${VERIFY_ROOT:-/tmp/deb-root}"
PRISTINE="${VERIFY_PRISTINE:-/tmp/deb-root-pristine.tar}"
MIRROR="${VERIFY_MIRROR:-http://deb.debian.org/debian}"
((EUID == 0)) || { echo "run as root (debootstrap, chroot)" >&2; exit 1; }
lines=("$@"); ((${#lines[@]})) || lines=(1 2)
[[ "${lines[*]}" == both ]] && lines=(1 2)

# The commands: the non-empty lines of the README's first fenced code block.
mapfile -t cmds < <(awk '/^```/{n++; next} n==1 && NF' README.md)
((${#cmds[@]} == 2)) || { echo "README's first code block must hold 2 commands, found ${#cmds[@]}" >&2; exit 1; }

unmount() {
  local m
  for m in dev/pts dev proc sys; do
    mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m" || true
  done
}
trap unmount EXIT

fresh_root() {
  unmount
  if [[ ! -f "$PRISTINE" ]]; then
    rm -rf "$ROOT"
    debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR"
    tar -C "$ROOT" -cf "$PRISTINE" .
  else
    rm -rf "$ROOT"; mkdir -p "$ROOT"
    tar -C "$ROOT" -xf "$PRISTINE"
  fi
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
  mkdir -p "$ROOT/root/sonicsim"
  git -C "$REPO" ls-files -z --cached --others --exclude-standard \
    | (cd "$REPO" && tar --null --no-recursion -T - -cf - 2>/dev/null) \
    | tar -C "$ROOT/root/sonicsim" -xf -
}

run_line() {
  local i="$1" cmd
  if [[ $i == ci ]]; then cmd=.ci/run; else cmd="${cmds[$((i - 1))]}"; fi
  mount -t proc proc "$ROOT/proc"
  mount --bind /dev "$ROOT/dev"; mount --bind /dev/pts "$ROOT/dev/pts"
  echo "=== line $i: $cmd"
  local t0=$SECONDS rc=0
  chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 CI=true \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root/sonicsim && $cmd" </dev/null || rc=$?
  echo "=== line $i: exit $rc after $((SECONDS - t0)) s"
  unmount
  return $rc
}

status=0
fresh_root
for i in "${lines[@]}"; do
  [[ "${VERIFY_FRESH_EACH:-0}" == 1 && $i != "${lines[0]}" ]] && fresh_root
  run_line "$i" || status=1
done
exit $status
