#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying the job scripts of this folder
# and for their test (tests/slurm.rs): munged, slurmctld and slurmd on 127.0.0.1, every
# file of theirs (key, sockets, state, spool, logs, pid files) under one directory, nothing
# in /etc or /var touched. Needs root (slurmd starts jobs as their user) and Debian's
# slurm-wlm and munge packages (`apt-get install slurm-wlm munge`; scripts/test.sh installs
# them).
#
#   scripts/slurm/local_cluster.sh start DIR   # prints `export SLURM_CONF=DIR/slurm.conf`
#   scripts/slurm/local_cluster.sh stop DIR
#
# With SLURM_CONF exported, sbatch, squeue, scontrol and sinfo talk to this cluster.
# The node has the machine's CPUs (nproc); processes are tracked by /proc
# (proctrack/linuxproc) and tasks are not bound (task/none), so no cgroup set-up is
# needed. Ports: SG_SLURM_PORT (slurmctld, default 16817) and the next one (slurmd).
set -euo pipefail

usage() {
  echo "usage: $0 start|stop DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
dir=$2

stop_pid_file() {
  local f=$1
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  fi
  rm -f "$f"
}

case "$cmd" in
stop)
  stop_pid_file "$dir/slurmd.pid"
  stop_pid_file "$dir/slurmctld.pid"
  stop_pid_file "$dir/munge/munged.pid"
  exit 0
  ;;
start) ;;
*) usage ;;
esac

if [ "$(id -u)" -ne 0 ]; then
  echo "$0: needs root (slurmd runs jobs as their user)" >&2
  exit 1
fi
for prog in munged slurmctld slurmd sbatch sinfo; do
  if ! command -v "$prog" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$prog" ]; then
    echo "$0: $prog not found: apt-get install slurm-wlm munge" >&2
    exit 1
  fi
done
export PATH="$PATH:/usr/sbin"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
# munged refuses directories others can write to, and needs every directory above its
# socket open to all (execute permission): DIR's parents are left as they are.
chmod 755 "$dir" "$dir/munge"
if [ ! -f "$dir/munge/munge.key" ]; then
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 600 "$dir/munge/munge.key"
fi
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed"

port=${SG_SLURM_PORT:-16817}
host=$(hostname -s)
cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm/local_cluster.sh: one node, everything under $dir.
ClusterName=stargammon-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
# Finished jobs stay visible to scontrol for an hour (their state is how a waiting
# script learns whether they succeeded; there is no accounting database).
MinJobAge=3600
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "$0: the node did not come up; logs in $dir/log" >&2
tail -n 20 "$dir/log/"*.log >&2 || true
exit 1
