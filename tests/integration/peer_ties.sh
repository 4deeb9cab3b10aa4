# peer_ties.sh - after a node is killed: which nodes had records at it (read
# from their status), and whether each found it dead (sourced, not run;
# needs $submit and tap.sh).
#
#   tied_to DIR NODE AT...
#       prints those of AT (each serving ipc://DIR/AT.sock) that have
#       records of theirs at NODE, or already count NODE dead.  Asked right
#       after NODE was killed, these are the nodes that must find it dead:
#       no result of NODE's can come any more, so such a record leaves only
#       when its holder is found dead and it runs again.
tied_to() {
    local dir=$1 node=$2 at
    shift 2
    for at in "$@"; do
        "$submit" --socket "ipc://$dir/$at.sock" --json --status 2>/dev/null |
            python3 -c "
import json, re, sys
v = json.load(sys.stdin).get('peer.$node', '')
m = re.search(r'; (\d+) record\(s\) of ours there', v)
sys.exit(0 if v.startswith('dead') or (m and int(m.group(1)) > 0) else 1)" 2>/dev/null &&
            echo "$at"
    done
    return 0
}

#   found_dead DIR NODE PREFIX TIED
#       two checks: every node of TIED (from tied_to, with its log at
#       DIR/AT.log) logged NODE's death and lists it dead in its status;
#       skipped when TIED is empty (NODE held nobody's records).
found_dead() {
    local dir=$1 node=$2 prefix=$3 tied=$4 at missed= listed=
    if [ -z "$tied" ]; then
        skip "${prefix}$node held no record of another node when it was killed"
        skip "${prefix}(same)"
        return
    fi
    for at in $tied; do
        grep -q "node $node is dead" "$dir/$at.log" || missed="$missed $at"
        run "$submit" --socket "ipc://$dir/$at.sock" --json --status
        [ "$(json_get "d['peer.$node'].split()[0]")" = dead ] || listed="$listed $at"
    done
    is "$missed" "" "${prefix}every node that had records at $node found it dead ($(echo $tied))"
    is "$listed" "" "${prefix}their status lists $node as dead"
}
