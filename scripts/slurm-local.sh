#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for testing sonicsim's Slurm path for real (CI) and
# for trying `sonicsim sweep --slurm` on a laptop. Root only (the daemons run as root).
#
#   scripts/slurm-local.sh start [DIR]   install slurm-wlm and munge when missing, write a
#                                        config under DIR (default /tmp/sonicsim-slurm), start
#                                        munged, slurmctld and slurmd, wait for the node
#   scripts/slurm-local.sh stop [DIR]    stop the daemons started from DIR, and leave the machine
#                                        as start found it: munged stopped and the cgroup
#                                        hierarchies unmounted when start had to provide them
#   scripts/slurm-local.sh env [DIR]     print `export SLURM_CONF=...` for clients (eval it)
#
# Clients find the cluster through SLURM_CONF=DIR/slurm.conf; nothing under /etc/slurm is
# touched. What works on these machines (no systemd, no cgroup delegation): process tracking by
# /proc (proctrack/linuxproc), no task plugin, no accounting.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cmd="${1:-}"
DIR="${2:-/tmp/sonicsim-slurm}"
CONF="$DIR/slurm.conf"
# What `start` provided that was not there before, for `stop` to take back: one line each,
# "mount PATH" (in mount order) or "munged PID".
PROVIDED="$DIR/provided"

node_line() {  # the node as slurmd sees it: CPUs, sockets, cores, memory
  slurmd -C | head -1
}

write_config() {
  local node
  node="$(hostname -s)"
  # A fresh cluster each time: saved state would restore old node addresses and jobs.
  rm -rf "$DIR/state" "$DIR/spool"
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log"
  cat >"$CONF" <<EOF
# Written by sonicsim scripts/slurm-local.sh: one node, root, no cgroups, no accounting.
ClusterName=sonicsim
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
MaxArraySize=100001
$(node_line) NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=sonicsim Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

# slurmd 22.05 loads its cgroup plugin even with proctrack/linuxproc and task/none. A bare
# root (debootstrap, chroot, container) may have /sys without the cgroup hierarchies: mount the
# cgroup v1 ones it needs, as systemd would have. (A cgroup-v2-only host needs dbus for slurmd's
# cgroup/v2 plugin; not covered.)
ensure_cgroups() {
  local c
  [[ -e /sys/fs/cgroup/freezer || -e /sys/fs/cgroup/cgroup.controllers ]] && return
  mkdir -p /sys/fs/cgroup
  if ! mountpoint -q /sys/fs/cgroup; then
    mount -t tmpfs -o mode=755 cgroup_root /sys/fs/cgroup ||
      die "no cgroup filesystem under /sys/fs/cgroup and none can be mounted (slurmd needs one)"
    echo "mount /sys/fs/cgroup" >>"$PROVIDED"
  fi
  for c in freezer cpuset memory devices pids cpu cpuacct; do
    mkdir -p "/sys/fs/cgroup/$c"
    if mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c" 2>/dev/null; then
      echo "mount /sys/fs/cgroup/$c" >>"$PROVIDED"
    else
      rmdir "/sys/fs/cgroup/$c"
    fi
  done
  mkdir -p /sys/fs/cgroup/systemd
  mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd ||
    die "cannot mount the cgroup hierarchies slurmd needs under /sys/fs/cgroup"
  echo "mount /sys/fs/cgroup/systemd" >>"$PROVIDED"
  log "mounted the cgroup v1 hierarchies slurmd needs under /sys/fs/cgroup"
}

start_munge() {
  # A working daemon answers on its socket (pgrep would also see one outside a chroot).
  if munge -n </dev/null >/dev/null 2>&1; then return; fi
  if [[ ! -s /etc/munge/munge.key ]]; then
    mungekey --create --force
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  runuser -u munge -- /usr/sbin/munged
  local _
  for _ in $(seq 1 50); do
    [[ -s /run/munge/munged.pid ]] && break
    sleep 0.1
  done
  [[ -s /run/munge/munged.pid ]] && echo "munged $(cat /run/munge/munged.pid)" >>"$PROVIDED"
}

# Takes back what start provided: munged stopped, the cgroup hierarchies unmounted (last
# mounted, first unmounted), and their folders removed.
take_back() {
  [[ -s "$PROVIDED" ]] || return 0
  local kind what pid _
  while read -r kind what; do
    [[ $kind == munged ]] || continue
    pid="$what"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  done <"$PROVIDED"
  tac "$PROVIDED" | while read -r kind what; do
    [[ $kind == mount ]] || continue
    umount "$what" 2>/dev/null || umount -l "$what" 2>/dev/null || true
    [[ $what == /sys/fs/cgroup ]] || rmdir "$what" 2>/dev/null || true
  done
  rm -f "$PROVIDED"
}

start() {
  [[ $EUID -eq 0 ]] || die "the local Slurm cluster runs as root"
  ensure_packages slurm-wlm munge
  stop_daemons 2>/dev/null || true
  take_back
  mkdir -p "$DIR"
  write_config
  ensure_cgroups
  start_munge
  slurmctld -f "$CONF" || { tail -20 "$DIR/log/slurmctld.log" >&2; die "slurmctld did not start"; }
  slurmd -f "$CONF" || { tail -20 "$DIR/log/slurmd.log" >&2; die "slurmd did not start"; }
  export SLURM_CONF="$CONF"
  local _
  for _ in $(seq 1 60); do
    local states
    states="$(sinfo -h -o '%T' 2>/dev/null)"
    if grep -qx idle <<<"$states"; then
      log "Slurm is up (node $(hostname -s), partition sonicsim): export SLURM_CONF=$CONF"
      return 0
    fi
    scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true
    sleep 1
  done
  tail -20 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2 || true
  die "Slurm did not come up within 60 s (logs above)"
}

stop_daemons() {  # and wait until they are gone, so that a restart finds the ports free
  local f pid _
  for f in "$DIR/slurmd.pid" "$DIR/slurmctld.pid"; do
    [[ -s "$f" ]] || continue
    pid="$(cat "$f")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    rm -f "$f"
  done
}

case "$cmd" in
  start) start ;;
  stop)
    stop_daemons
    take_back
    log "stopped the Slurm daemons of $DIR and what they needed"
    ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *) sed -n '2,13p' "$0"; exit 2 ;;
esac
