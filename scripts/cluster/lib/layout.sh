# shellcheck shell=bash disable=SC2034 # the variables are used by the sourcing scripts
# Where everything of one test cluster lives inside its state directory, and
# which ports it uses.  Sourced by start.sh and stop.sh so both agree.
#
# layout_init STATE_DIR: set the path variables below (STATE must be absolute).
layout_init() {
  STATE=$1
  MARKER=$STATE/.slurm-omru-test-cluster # "this directory is ours"
  SLURM_CONF_FILE=$STATE/slurm.conf
  GRES_CONF_FILE=$STATE/gres.conf
  DBD_CONF_FILE=$STATE/slurmdbd.conf
  PLUGSTACK_FILE=$STATE/plugstack.conf
  OMRU_CONF_FILE=$STATE/omru.conf   # select/omru reads it next to slurm.conf
  ENV_FILE=$STATE/env.sh
  LOG_DIR=$STATE/log
  PIDS_DIR=$STATE/pids              # our records: NAME.pid + NAME.start
  RUN_DIR=$STATE/run                # pid files the daemons write themselves
  MUNGE_DIR=$STATE/munge
  MUNGE_SOCKET=$MUNGE_DIR/munge.socket
  DB_DIR=$STATE/mysql
  DB_SOCKET=$DB_DIR/mysqld.sock
  CTLD_STATE_DIR=$STATE/state
  SPOOL_DIR=$STATE/spool
  DEV_DIR=$STATE/dev
  NET_DIR=$STATE/net
  NET_RECORD=$NET_DIR/created
  # Everything start.sh regenerates on each start (logs are rotated instead).
  GENERATED=("$SLURM_CONF_FILE" "$GRES_CONF_FILE" "$DBD_CONF_FILE"
    "$PLUGSTACK_FILE" "$OMRU_CONF_FILE" "$ENV_FILE" "$RUN_DIR" "$MUNGE_DIR" "$DB_DIR"
    "$CTLD_STATE_DIR" "$SPOOL_DIR" "$DEV_DIR")
}

# Ports, all derived from the port base P:
#   P slurmctld, P+1 slurmdbd, P+2 MariaDB,
#   P+10+i slurmd of loopback node n<i>, P+10+N+j slurmd of namespace node ns<j>.
ctld_port() { echo "$1"; }
dbd_port() { echo $(($1 + 1)); }
db_port() { echo $(($1 + 2)); }
slurmd_port() { echo $(($1 + 10 + $2)); } # PORT_BASE INDEX(1-based, n then ns)
