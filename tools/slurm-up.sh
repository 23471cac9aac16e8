#!/bin/sh
# Starts a one-node Slurm cluster on this machine (Debian's slurmctld,
# slurmd and munge; root), so that fits from chunks can be run through
# future.batchtools::batchtools_slurm as on a real cluster. Idempotent: a
# cluster already answering is left alone. Prints the SLURM_CONF to export.
#   sh tools/slurm-up.sh [dir]   (default /tmp/sparsebayes-slurm)
#   sh tools/slurm-up.sh --down [dir]
set -e
down=0
if [ "$1" = "--down" ]; then down=1; shift; fi
dir=${1:-/tmp/sparsebayes-slurm}
conf=$dir/slurm.conf
alive() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }
if [ "$down" = 1 ]; then
  for p in slurmd slurmctld; do alive $p && kill "$(cat "$dir/$p.pid")"; done
  i=0
  while alive slurmd || alive slurmctld; do i=$((i + 1)); [ $i -le 40 ] || exit 1; sleep 0.25; done
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "slurm-up: needs root (the daemons and munge)" >&2; exit 1; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  command -v apt-get >/dev/null || { echo "slurm-up: no slurmctld and no apt-get to install it" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd munge >/dev/null
fi
if alive slurmctld && alive slurmd; then
  SLURM_CONF=$conf timeout 10 sinfo -h -o %T 2>/dev/null | grep -q idle && { echo "$conf"; exit 0; }
  echo "slurm-up: the cluster in $dir is not idle; see $dir/*.log, or stop it with --down" >&2
  exit 1
fi

# munge: the daemon runs as its own user with its key (made on install).
[ -f /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || create-munge-key -f; chown munge:munge /etc/munge/munge.key; }
mkdir -p /run/munge && chown munge:munge /run/munge
munge -n 2>/dev/null | unmunge >/dev/null 2>&1 || runuser -u munge -- /usr/sbin/munged

host=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool"
# The node as slurmd sees it (CPUs, memory); proctrack/linuxproc and
# task/none need no cgroups, so the cluster starts in containers too.
node=$(slurmd -C | head -1)
cat >"$conf" <<CONF
ClusterName=sparsebayes
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
$node
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -f "$conf"
slurmd -f "$conf"
i=0
until SLURM_CONF=$conf sinfo -h -o %T 2>/dev/null | grep -q idle; do
  i=$((i + 1))
  [ $i -le 60 ] || { echo "slurm-up: the node did not become idle; see $dir/*.log" >&2; exit 1; }
  sleep 0.5
done
echo "$conf"
