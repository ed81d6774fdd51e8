# shellcheck shell=bash
# Network namespaces for the test cluster's "remote" nodes.
#
# Each namespace gets one veth pair whose host end is enslaved to a bridge that
# carries the controller's address, so a slurmd in a namespace really talks to
# slurmctld over an IP network instead of loopback.  Everything is created
# inside a private range on interfaces made here, so no traffic leaves the
# machine.
#
# Every object is written to $NET_RECORD *before* it is created (and only after
# checking that nothing of that name exists), so stop.sh removes exactly what
# this cluster made, even after a half-finished start.

# Names and addresses derive from the port base so that two clusters with
# different port bases do not collide.  Interface names stay within 15 chars.
net_bridge() { echo "omrubr$1"; }             # PORT_BASE
net_ns() { echo "omru$1-ns$2"; }              # PORT_BASE INDEX
net_veth_host() { echo "omru$1h$2"; }         # PORT_BASE INDEX
net_veth_peer() { echo "omru$1p$2"; }         # PORT_BASE INDEX
net_prefix() { echo "10.200.$(($1 % 256))"; } # PORT_BASE -> first 3 octets
net_bridge_addr() { echo "$(net_prefix "$1").1"; }
net_node_addr() { echo "$(net_prefix "$1").$((10 + $2))"; }

# net_check_free PORT_BASE COUNT: fail if any name or the subnet is in use.
net_check_free() {
  local base=$1 count=$2 i prefix
  prefix=$(net_prefix "$base")
  if ip -4 -o addr show | grep -qF " $prefix."; then
    echo "cluster: subnet $prefix.0/24 (from --port-base $base) is already" \
      "assigned on this machine; choose another --port-base" >&2
    return 1
  fi
  local -a links=("$(net_bridge "$base")")
  for ((i = 1; i <= count; i++)); do
    links+=("$(net_veth_host "$base" "$i")" "$(net_veth_peer "$base" "$i")")
    if [ -e "/run/netns/$(net_ns "$base" "$i")" ]; then
      echo "cluster: network namespace $(net_ns "$base" "$i") exists already" >&2
      return 1
    fi
  done
  local l
  for l in "${links[@]}"; do
    if ip link show "$l" >/dev/null 2>&1; then
      echo "cluster: network link $l exists already" >&2
      return 1
    fi
  done
}

# net_create PORT_BASE COUNT: bridge + COUNT namespaces, each with a veth.
net_create() {
  local base=$1 count=$2 i
  local br
  br=$(net_bridge "$base")
  net_check_free "$base" "$count" || return 1

  echo "link $br" >>"$NET_RECORD"
  ip link add "$br" type bridge
  ip addr add "$(net_bridge_addr "$base")/24" dev "$br"
  ip link set "$br" up

  local ns host peer
  for ((i = 1; i <= count; i++)); do
    ns=$(net_ns "$base" "$i")
    host=$(net_veth_host "$base" "$i")
    peer=$(net_veth_peer "$base" "$i")
    echo "netns $ns" >>"$NET_RECORD"
    ip netns add "$ns"
    echo "link $host" >>"$NET_RECORD"
    ip link add "$host" type veth peer name "$peer"
    ip link set "$peer" netns "$ns"
    ip link set "$host" master "$br" up
    # `ip -n` switches namespace for the ip command only; unlike
    # `ip netns exec` for a daemon, that is harmless here.
    ip -n "$ns" addr add "$(net_node_addr "$base" "$i")/24" dev "$peer"
    ip -n "$ns" link set "$peer" up
    ip -n "$ns" link set lo up
  done
}

# net_remove_recorded: delete what $NET_RECORD lists, newest first, then the
# record itself.  Objects already gone are fine (idempotent stop).
net_remove_recorded() {
  [ -f "$NET_RECORD" ] || return 0
  local kind name
  while read -r kind name; do
    case $kind in
      netns) ip netns delete "$name" 2>/dev/null || true ;;
      link) ip link delete "$name" 2>/dev/null || true ;;
    esac
  done < <(tac "$NET_RECORD")
  rm -f "$NET_RECORD"
}
