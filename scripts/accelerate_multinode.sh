#!/usr/bin/env bash
# One `accelerate launch` per node of the current SLURM allocation, through srun.
#
#   accelerate_multinode.sh <accelerate_config.yaml> <gpus_per_node> <launch args...>
#   e.g. accelerate_multinode.sh configs/accelerate/zero3.yaml 8 -m rlvr_support train --parent ...
#
# The train rule calls this when resources.train.nodes > 1 (workflow/rules/common.smk:
# get_train_launcher); the rule then carries the `mpi` resource, so the SLURM executor runs
# this on the first node of the allocation instead of inside `srun -n1`. Rank 0's host is the
# rendezvous point; every node starts gpus_per_node processes (the pattern of accelerate's
# examples/slurm/submit_multinode.sh).
set -euo pipefail

if [[ $# -lt 3 ]]; then
    echo "usage: $0 <accelerate_config.yaml> <gpus_per_node> <launch args...>" >&2
    exit 2
fi
config=$1
gpus_per_node=$2
shift 2

if [[ -z "${SLURM_JOB_NODELIST:-}" || -z "${SLURM_NNODES:-}" ]]; then
    echo "error: $0 runs inside a SLURM allocation (SLURM_JOB_NODELIST and SLURM_NNODES are unset)" >&2
    exit 1
fi

hosts=$(scontrol show hostnames "$SLURM_JOB_NODELIST")   # no `| head`: pipefail + SIGPIPE
main_host=${hosts%%$'\n'*}
port=${RLVR_MAIN_PROCESS_PORT:-$((20000 + SLURM_JOB_ID % 20000))}
nodes=$SLURM_NNODES
processes=$((nodes * gpus_per_node))

echo "accelerate on $nodes node(s) x $gpus_per_node GPU(s); rendezvous $main_host:$port; config $config" >&2

# Quoted so that each srun task expands its own SLURM_NODEID (its machine rank).
launch="accelerate launch --config_file $(printf '%q' "$config") \
    --num_machines $nodes --num_processes $processes \
    --machine_rank \$SLURM_NODEID --main_process_ip $main_host --main_process_port $port \
    --rdzv_backend static --same_network"
for arg in "$@"; do
    launch+=" $(printf '%q' "$arg")"
done

exec srun --nodes="$nodes" --ntasks-per-node=1 --ntasks="$nodes" --kill-on-bad-exit=1 bash -c "$launch"
