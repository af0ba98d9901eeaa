#!/usr/bin/env bash
# Run a real single-node Apache Cassandra 5.0 on 127.0.0.1 for tests, or a
# 3-node cluster on 127.0.0.1-3, from the cassandra-all jars on Maven Central,
# on the machine's OpenJDK 17 (or 11). No Docker, no tarball download.
#
#   scripts/cassandra.sh start [--auth] [--latest]
#                                         start (no-op if already running and ready in that mode)
#   scripts/cassandra.sh start --cluster  start 3 nodes, 127.0.0.1-3 (no-op if already running)
#   scripts/cassandra.sh stop             stop every node started by this script (single or cluster)
#   scripts/cassandra.sh stop-node N      stop node N of the cluster (SIGTERM, then wait)
#   scripts/cassandra.sh start-node N     start node N of the cluster again, with its data
#   scripts/cassandra.sh status           exit 0 if running and answering CQL, else 1
#                                         (cluster: every node)
#
# Environment (all optional):
#   KANDRA_CASSANDRA_HOME     cache + state dir        (default: $HOME/.cache/kandra-cassandra)
#   KANDRA_CASSANDRA_VERSION  cassandra-all version    (default: newest of 5.0.8 5.0.7 5.0.6 that resolves)
#   KANDRA_CASSANDRA_PORT     CQL port                 (default: 9042)
#   KANDRA_CASSANDRA_STORAGE_PORT  inter-node port     (default: 7000)
#   KANDRA_CASSANDRA_AUTH     1 = same as --auth       (default: 0)
#   KANDRA_CASSANDRA_LATEST   1 = same as --latest     (default: 0)
#   KANDRA_CASSANDRA_TIMEOUT  seconds to wait for CQL  (default: 240)
#   KANDRA_CASSANDRA_HEAP     -Xms/-Xmx                (default: 1g)
#   KANDRA_CASSANDRA_JAVA     java binary (must be 11 or 17)
#   KANDRA_CASSANDRA_EXTRA_YAML  lines appended verbatim to cassandra.yaml
#   KANDRA_M2_REPO            Maven local repo         (default: Maven's own default)
#
# Auth mode: PasswordAuthenticator + CassandraAuthorizer, superuser cassandra/cassandra.
# Latest mode: the settings of Cassandra 5.0's conf/cassandra_latest.yaml that
# change what schemas and writes the node accepts (see latest_yaml below).
# To run a second node beside one that is already running (say, a latest node
# beside a default one), give it its own KANDRA_CASSANDRA_HOME,
# KANDRA_CASSANDRA_PORT and KANDRA_CASSANDRA_STORAGE_PORT.
# Readiness = log line "Starting listening for CQL clients", then a real CQL
# handshake on the port (STARTUP, login when auth is on, SELECT from system.local),
# spoken in plain bash over /dev/tcp because cqlsh is not available.
#
# Cluster mode: node i listens on 127.0.0.i (Linux routes all of 127/8 to lo,
# no alias needed) with the same CQL and storage ports, one JVM per node, each
# with its own run dir, pid and log under $KANDRA_CASSANDRA_HOME/node<i>; seed
# 127.0.0.1, SimpleSnitch (datacenter "datacenter1", rack "rack1", as the single
# node), 16 tokens per node, no bootstrap streaming (the cluster is empty).
# Nodes start one after another: each must answer CQL on its own address, and
# be NORMAL in node 1's gossip, before the next starts. Heap is per node.
# No auth, no --latest in cluster mode.
set -euo pipefail

readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly POM="$SCRIPT_DIR/../.ci/cassandra/pom.xml"

KH="${KANDRA_CASSANDRA_HOME:-$HOME/.cache/kandra-cassandra}"
PORT="${KANDRA_CASSANDRA_PORT:-9042}"
STORAGE_PORT="${KANDRA_CASSANDRA_STORAGE_PORT:-7000}"
TIMEOUT="${KANDRA_CASSANDRA_TIMEOUT:-240}"
HEAP="${KANDRA_CASSANDRA_HEAP:-1g}"
AUTH="${KANDRA_CASSANDRA_AUTH:-0}"
LATEST="${KANDRA_CASSANDRA_LATEST:-0}"
VERSIONS="${KANDRA_CASSANDRA_VERSION:-5.0.8 5.0.7 5.0.6}"
SUPERUSER=cassandra
SUPERPASS=cassandra
readonly CLUSTER_NODES=3

# The node the functions below act on; use_node switches them to a cluster node.
ADDR=127.0.0.1                # listen, rpc and probe address
RUN="$KH/run"                 # wiped on every start: config, data, logs
PIDFILE="$KH/cassandra.pid"
STATEFILE="$KH/cassandra.state" # "port auth version config" of the running node
LOG="$RUN/logs/cassandra.log"
CLUSTERFILE="$KH/cluster.state" # "nodes port version" while a cluster runs

# use_node N: act on cluster node N (127.0.0.N, files under $KH/nodeN).
use_node() {
  [[ "$1" =~ ^[1-9]$ ]] && (( $1 <= CLUSTER_NODES )) || die "no cluster node '$1' (nodes are 1-$CLUSTER_NODES)"
  NODE=$1
  ADDR=127.0.0.$1
  RUN="$KH/node$1/run"   # not wiped by start-node: the node keeps its data
  PIDFILE="$KH/node$1/cassandra.pid"
  STATEFILE="$KH/node$1/cassandra.state"
  LOG="$RUN/logs/cassandra.log"
}

die() { echo "cassandra: ERROR: $*" >&2; exit 1; }
note() { echo "cassandra: $*" >&2; }

log_tail() {
  if [[ -f "$LOG" ]]; then
    echo "----- last 80 lines of $LOG -----" >&2
    tail -n 80 "$LOG" >&2 || true
    echo "----- end of log -----" >&2
  fi
}

now_ms() { date +%s%3N; }

# A PID counts as alive only if it exists and is not a zombie: an orphaned
# java that died may linger as a zombie under an init that does not reap.
alive() {
  local pid=$1 state
  [[ -n "$pid" && -r "/proc/$pid/stat" ]] || return 1
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ -n "$state" && "$state" != Z && "$state" != X ]]
}

# Guard against PID reuse: the process must be a CassandraDaemon using our run dir.
is_our_node() {
  local pid=$1 cmd
  alive "$pid" || return 1
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmd" == *org.apache.cassandra.service.CassandraDaemon* && "$cmd" == *"$RUN/"* ]]
}

read_pid() { [[ -f "$PIDFILE" ]] && tr -dc '0-9' <"$PIDFILE" || true; }

port_in_use() { (exec 3<>"/dev/tcp/$ADDR/$1") 2>/dev/null; }   # PORT, on $ADDR

# ---------------------------------------------------------------------------
# Minimal CQL native protocol v4 client in bash (no cqlsh here): STARTUP,
# optional SASL PLAIN login, then SELECT release_version FROM system.local.
# Prints the server's error text on failure. Usage: cql_probe HOST PORT [USER PASS]
cql_probe() (
  export LC_ALL=C
  local host=$1 port=$2 user=${3:-} pass=${4:-} hdr op len body
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || { echo "connection refused"; return 1; }

  be32() { printf "\\x$(printf %02x $(($1 >> 24 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 & 255)))"; }
  # send_frame STREAM OPCODE BODY-FILE
  send_frame() { { printf '\x04\x00\x00'"\\x$(printf %02x "$1")\\x$2"; be32 "$(stat -c %s "$3")"; cat "$3"; } >&3; }
  # read_frame: sets op (hex) and body (hex); 10 s per read so a hung server cannot block us
  read_frame() {
    hdr=$(timeout 10 head -c 9 <&3 | od -An -v -tx1 | tr -d ' \n')
    [[ ${#hdr} -eq 18 ]] || { echo "no/short response from server"; return 1; }
    op=${hdr:8:2}; len=$((16#${hdr:10:8}))
    body=$(timeout 10 head -c "$len" <&3 | od -An -v -tx1 | tr -d ' \n')
  }
  # ERROR body = int code + [string]; print the message text
  print_error() { printf '%b\n' "$(echo "${body:12}" | sed 's/../\\x&/g')"; }

  local tmp; tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
  printf '\x00\x01\x00\x0bCQL_VERSION\x00\x053.0.0' >"$tmp"
  send_frame 1 01 "$tmp"; read_frame || return 1
  case $op in
    02) ;;                                        # READY: no auth required
    03) [[ -n "$user" ]] || { echo "server requires authentication"; return 1; }
        # SASL PLAIN token \0user\0pass, written with printf (bash strings cannot hold NULs)
        { be32 $((${#user} + ${#pass} + 2)); printf '\x00%s\x00%s' "$user" "$pass"; } >"$tmp"
        send_frame 2 0f "$tmp"; read_frame || return 1
        case $op in
          10) ;;                                  # AUTH_SUCCESS
          00) print_error; return 1 ;;
          *) echo "unexpected opcode 0x$op after AUTH_RESPONSE"; return 1 ;;
        esac ;;
    00) print_error; return 1 ;;
    *) echo "unexpected opcode 0x$op after STARTUP"; return 1 ;;
  esac
  local q='SELECT release_version FROM system.local'
  { be32 ${#q}; printf '%s\x00\x01\x00' "$q"; } >"$tmp"   # query, consistency ONE, no flags
  send_frame 3 07 "$tmp"; read_frame || return 1
  case $op in
    08) return 0 ;;                               # RESULT
    00) print_error; return 1 ;;
    *) echo "unexpected opcode 0x$op after QUERY"; return 1 ;;
  esac
)

# Probe the running node with the credentials its mode needs.
probe_node() {
  local port auth
  read -r port auth _ <"$STATEFILE" 2>/dev/null || return 1
  if [[ "$auth" == 1 ]]; then cql_probe "$ADDR" "$port" "$SUPERUSER" "$SUPERPASS"; else cql_probe "$ADDR" "$port"; fi
}

# ---------------------------------------------------------------------------
# Java: Cassandra 5.0 runs on 11 or 17 only (18-23 need hacks, 24+ cannot work:
# it calls System.setSecurityManager). Never pick up the JDK 25 on this machine.
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n1
}

pick_java() {
  local j major tried=""
  if [[ -n "${KANDRA_CASSANDRA_JAVA:-}" ]]; then
    major=$(java_major "$KANDRA_CASSANDRA_JAVA")
    [[ "$major" == 17 || "$major" == 11 ]] || die "KANDRA_CASSANDRA_JAVA=$KANDRA_CASSANDRA_JAVA is Java '${major:-unknown}'; Cassandra 5.0 needs Java 17 or 11"
    JAVA=$KANDRA_CASSANDRA_JAVA; return 0
  fi
  # Debian's OpenJDK 17 first, then JAVA_HOME and PATH (which may well be the JDK 25), then 11.
  for j in /usr/lib/jvm/java-17-openjdk-*/bin/java "${JAVA_HOME:+$JAVA_HOME/bin/java}" \
           "$(command -v java || true)" /usr/lib/jvm/java-11-openjdk-*/bin/java; do
    [[ -n "$j" && -x "$j" ]] || continue
    major=$(java_major "$j")
    if [[ "$major" == 17 || "$major" == 11 ]]; then JAVA=$j; return 0; fi
    tried+=" $j=Java${major:-?}"
  done
  die "no Java 17 or 11 found (Cassandra 5.0 cannot run on 18+ without hacks, nor at all on 24+); tried:${tried:- nothing}. Install openjdk-17-jdk-headless or set KANDRA_CASSANDRA_JAVA"
}

# ---------------------------------------------------------------------------
# Jars: copy-dependencies of cassandra-all into $KH/lib-<version>. The marker
# is written only after a complete copy, so an interrupted fetch is redone.
fetch_jars() {
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  [[ -f "$POM" ]] || die "missing $POM"
  local v lib tmp mlog t0 repo_opt=()
  if [[ -n "${KANDRA_M2_REPO:-}" ]]; then repo_opt=("-Dmaven.repo.local=$KANDRA_M2_REPO"); fi
  for v in $VERSIONS; do
    lib="$KH/lib-$v"
    if [[ -f "$lib/.complete" ]]; then CASSANDRA_VERSION=$v; LIB=$lib; return 0; fi
    tmp="$KH/lib-$v.partial"; mlog="$KH/mvn-$v.log"
    rm -rf "$tmp" "$lib"; mkdir -p "$tmp"
    t0=$(now_ms)
    if mvn -B -q "${repo_opt[@]}" -f "$POM" \
         -Dcassandra.version="$v" -DincludeScope=runtime -DoutputDirectory="$tmp" \
         org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
         </dev/null >"$mlog" 2>&1 \
       && [[ -f "$tmp/cassandra-all-$v.jar" ]] && compgen -G "$tmp/jamm-*.jar" >/dev/null; then
      mv "$tmp" "$lib"
      date -u +%FT%TZ >"$lib/.complete"
      note "fetched cassandra-all $v: $(ls "$lib"/*.jar | wc -l) jars, $(du -sm "$lib" | cut -f1) MB in $(( ($(now_ms) - t0 + 500) / 1000 ))s"
      CASSANDRA_VERSION=$v; LIB=$lib; return 0
    fi
    note "cassandra-all $v did not resolve (log: $mlog); trying the next version"
    sed 's/\x1b\[[0-9;]*m//g' "$mlog" | grep -m3 . >&2 || true   # first lines hold the cause
    rm -rf "$tmp"
  done
  die "could not fetch any of: $VERSIONS"
}

# ---------------------------------------------------------------------------
# The settings of Cassandra 5.0's conf/cassandra_latest.yaml that change what
# schemas and writes the node accepts, copied from that file on the
# cassandra-5.0 branch (commit af140beee577147726aa8f26b89ffa936d36ed4b,
# 5.0.3-dev, whose last change to the file is of 2024-11-06; later 5.0.x
# changes to it, if any, are unverified). The file's other differences from
# cassandra.yaml are operational and left out on purpose: key_cache_size
# 0MiB, commitlog_disk_access_mode auto, memtable_allocation_type
# offheap_objects, trickle_fsync true, concurrent_compactors 8,
# batchlog_endpoint_strategy dynamic_remote, stream_entire_sstables true,
# uuid_sstable_identifiers_enabled true, and the class_name form of the auth
# settings.
latest_yaml() {
  cat <<'EOF'
# --- from cassandra_latest.yaml (Cassandra 5.0): --latest ---
# Expirations capped at 2106-02-07 instead of 2038-01-19 (TTLs past 2038 write).
storage_compatibility_mode: NONE
# CREATE INDEX without USING makes a storage-attached index (SAI refuses blobs).
default_secondary_index: sai
default_secondary_index_enabled: true
# The storage engine every write and every new table goes through.
memtable:
  configurations:
    skiplist:
      class_name: SkipListMemtable
    trie:
      class_name: TrieMemtable
    default:
      inherits: trie
sstable:
  selected_format: bti
column_index_size: 4KiB
default_compaction:
  class_name: UnifiedCompactionStrategy
  parameters:
    scaling_parameters: T4
    max_sstables_to_compact: 64
    target_sstable_size: 1GiB
    sstable_growth: 0.3333333333333333
    min_sstable_size: 100MiB
# --- end of cassandra_latest.yaml settings ---
EOF
}

# write_config AUTH LATEST [CLUSTER]: a fresh run dir for the current node
# ($ADDR); CLUSTER=1 writes the cluster node's ring settings.
write_config() {
  local auth=$1 latest=$2 cluster=${3:-0}
  rm -rf "$RUN"   # fresh node every start: no leftover data, schema or roles
  mkdir -p "$RUN"/{conf,data,commitlog,saved_caches,hints,cdc_raw,logs,triggers,tmp}
  local authn=AllowAllAuthenticator authz=AllowAllAuthorizer
  if [[ "$auth" == 1 ]]; then authn=PasswordAuthenticator; authz=CassandraAuthorizer; fi
  local name=kandra-ci ring='num_tokens: 1
initial_token: 0                  # deterministic ring, no "Picking random token" warning'
  if [[ "$cluster" == 1 ]]; then
    # A name of its own, so that a stray single node on the seed's address
    # cannot join. 16 tokens: an even enough ring, fast to compute; tokens
    # of nodes 2-3 allocated for RF 3 (the seed's are random). No bootstrap:
    # on an empty cluster there is nothing to stream, and bootstrapping
    # would sleep RING_DELAY (30 s) per node.
    # Timeouts 5x the defaults: three JVMs share the machine's cores, and a
    # replica in a GC pause or a Paxos round among racing appliers would
    # otherwise time a test's write out ("received only 1 responses").
    name=kandra-cluster ring='num_tokens: 16
allocate_tokens_for_local_replication_factor: 3
auto_bootstrap: false
read_request_timeout: 25000ms
range_request_timeout: 50000ms
write_request_timeout: 10000ms
counter_write_request_timeout: 25000ms
cas_contention_timeout: 5000ms
request_timeout: 50000ms'
  fi
  # Unknown keys are fatal ("Invalid yaml"), so keep to 5.0 names.
  cat >"$RUN/conf/cassandra.yaml" <<EOF
cluster_name: $name
$ring
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:$STORAGE_PORT"
listen_address: $ADDR
rpc_address: $ADDR
storage_port: $STORAGE_PORT
native_transport_port: $PORT
start_native_transport: true
data_file_directories: [ "$RUN/data" ]
commitlog_directory: "$RUN/commitlog"
saved_caches_directory: "$RUN/saved_caches"
hints_directory: "$RUN/hints"
cdc_raw_directory: "$RUN/cdc_raw"
commitlog_sync: periodic
commitlog_sync_period: 10000ms
authenticator: $authn
authorizer: $authz
role_manager: CassandraRoleManager
auto_snapshot: false
incremental_backups: false
snapshot_before_compaction: false
# unslabbed: each written table's memtable would otherwise claim 1 MiB slab regions
# on the heap; the suite writes to ~1,000 tables and a 1 GiB heap ran out.
memtable_allocation_type: unslabbed_heap_buffers
concurrent_compactors: 1
# Column masks (CREATE TABLE ... MASKED WITH, ALTER ... MASKED WITH): off by
# default in 5.0 ("Cannot mask columns because dynamic data masking is not
# enabled"); the migrator's mask scenario needs them.
dynamic_data_masking_enabled: true
# User-defined functions and materialized views, off by default in 5.0: the
# importer's scenario shows that kandra lists them and leaves them be.
user_defined_functions_enabled: true
materialized_views_enabled: true
EOF
  if [[ "$latest" == 1 ]]; then latest_yaml >>"$RUN/conf/cassandra.yaml"; fi
  if [[ -n "${KANDRA_CASSANDRA_EXTRA_YAML:-}" ]]; then
    printf '%s\n' "$KANDRA_CASSANDRA_EXTRA_YAML" >>"$RUN/conf/cassandra.yaml"
  fi
  cat >"$RUN/conf/logback.xml" <<'EOF'
<configuration scan="false">
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
EOF
}

jvm_args() {
  local jamm
  jamm=$(compgen -G "$LIB/jamm-*.jar" | head -n1)
  JVM_ARGS=(
    "-Xms$HEAP" "-Xmx$HEAP" -Xss256k
    # GC settings from 5.0 conf/jvm17-server.options (no AlwaysPreTouch: slower start, more RSS)
    -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 -XX:G1HeapRegionSize=16m
    -XX:G1RSetUpdatingPauseTimePercent=5 -XX:MaxGCPauseMillis=300 -XX:InitiatingHeapOccupancyPercent=70
    -XX:+ExitOnOutOfMemoryError -XX:+PerfDisableSharedMem -XX:+UseThreadPriorities -XX:+UseTLAB -XX:+ResizeTLAB
    -ea -da:net.openhft...                      # as upstream jvm-server.options
    -Djava.net.preferIPv4Stack=true -Dchronicle.analytics.disable=true -Djdk.attach.allowAttachSelf=true
    # JPMS opens/exports from 5.0 conf/jvm17-server.options: without them the JVM dies at start
    --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
    --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
    --add-exports java.management/com.sun.jmx.remote.security=ALL-UNNAMED
    --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
    --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
    --add-exports java.sql/java.sql=ALL-UNNAMED
    --add-exports java.base/java.lang.ref=ALL-UNNAMED
    --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
    --add-opens java.base/java.lang.module=ALL-UNNAMED
    --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
    --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
    --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
    --add-opens java.base/jdk.internal.math=ALL-UNNAMED
    --add-opens java.base/jdk.internal.module=ALL-UNNAMED
    --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
    --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.lang.reflect=ALL-UNNAMED
    --add-opens java.base/java.lang=ALL-UNNAMED
    --add-opens java.base/java.util=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED
    -Dio.netty.tryReflectionSetAccessible=true -Dio.netty.allocator.useCacheForAllThreads=true
    -Dio.netty.allocator.maxOrder=11
  )
  # cassandra.in.sh adds these when running on a full JDK (javac present)
  if [[ -x "$(dirname "$(readlink -f "$JAVA")")/javac" ]]; then
    JVM_ARGS+=(--add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED
               --add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
               --add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED)
  fi
  JVM_ARGS+=(
    "-javaagent:$jamm"                          # jamm 0.4.0 measures memtable sizes
    "-Djava.io.tmpdir=$RUN/tmp" "-Djna.tmpdir=$RUN/tmp"   # natives unpack here (JNA would use ~/.cache/JNA); must allow exec
    -Dcassandra-foreground=yes                  # else System.out/err are closed after setup
    "-Dcassandra.config=file://$RUN/conf/cassandra.yaml"
    "-Dcassandra.storagedir=$RUN" "-Dcassandra.logdir=$RUN/logs" "-Dcassandra.triggers_dir=$RUN/triggers"
    "-Dlogback.configurationFile=$RUN/conf/logback.xml"
    # start-up speed for a throwaway single node
    -Dcassandra.skip_wait_for_gossip_to_settle=0
    -Dcassandra.unsafesystem=true
    -Dcassandra.test.flush_local_schema_changes=false
    -Dcassandra.superuser_setup_delay_ms=0      # default 10 s before cassandra/cassandra exists
    -Dcassandra.auth_bcrypt_gensalt_log2_rounds=4
    -cp "$RUN/conf:$LIB/*"
    org.apache.cassandra.service.CassandraDaemon
  )
}

# ---------------------------------------------------------------------------
# Wait for CQL. Returns 0 when ready; dies (with the log tail) on timeout or crash.
wait_ready() {
  local pid=$1 deadline=$(( $(date +%s) + TIMEOUT )) why=""
  while :; do
    alive "$pid" || { note "node (pid $pid) died during start-up"; log_tail; rm -f "$PIDFILE" "$STATEFILE"; exit 1; }
    if grep -q 'Starting listening for CQL clients' "$LOG" 2>/dev/null; then
      if why=$(probe_node 2>&1); then return 0; fi
    fi
    if (( $(date +%s) >= deadline )); then
      note "node (pid $pid) not ready on $ADDR:$PORT after ${TIMEOUT}s${why:+ (last CQL probe: $why)}"
      log_tail
      kill_node "$pid"; rm -f "$PIDFILE" "$STATEFILE"
      note "stopped the half-started node (pid $pid); its files stay in $RUN"
      exit 1
    fi
    sleep 0.5
  done
}

config_name() { if [[ "$1" == 1 ]]; then echo latest; else echo default; fi; }

# Start java for the current node ($RUN, $LOG, $JVM_ARGS) in the background;
# sets pid. The log is truncated.
launch() {
  # Cassandra calls mlockall() unconditionally; as root it succeeds and pins the whole
  # heap (RSS ~1.4 GB instead of ~0.4 GB with -Xmx1g). Drop CAP_IPC_LOCK and cap
  # RLIMIT_MEMLOCK so it fails harmlessly (one WARN "Unable to lock JVM memory").
  local nolock=()
  if [[ $EUID == 0 ]] && setpriv --bounding-set=-ipc_lock true 2>/dev/null; then
    nolock=(setpriv --bounding-set=-ipc_lock)
  fi
  # Detach: own session (no SIGHUP/Ctrl-C from the caller), no stdin, lock fd closed.
  # setsid and setpriv exec in place, so $! is the java PID.
  ( ulimit -l 64 2>/dev/null || true
    exec setsid "${nolock[@]}" "$JAVA" "${JVM_ARGS[@]}" ) </dev/null >"$LOG" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$PIDFILE"
}

# A cluster node that runs (pid alive and ours), for the messages below.
cluster_running_nodes() {
  local i out=""
  for ((i = 1; i <= CLUSTER_NODES; i++)); do
    ( use_node "$i"; p=$(read_pid); [[ -n "$p" ]] && is_our_node "$p" ) && out+=" $i"
  done
  echo "${out# }"
}

cmd_start() {
  local auth=$AUTH latest=$LATEST cluster=0 opt
  for opt in "$@"; do
    case "$opt" in
      --auth) auth=1 ;;
      --latest) latest=1 ;;
      --cluster) cluster=1 ;;
      *) die "unknown start option '$opt' (usage: $0 start [--auth] [--latest] | start --cluster)" ;;
    esac
  done
  if [[ "$auth" == 1 || "$auth" == true ]]; then auth=1; else auth=0; fi
  if [[ "$latest" == 1 || "$latest" == true ]]; then latest=1; else latest=0; fi
  if [[ "$cluster" == 1 ]]; then
    [[ "$auth" == 0 && "$latest" == 0 ]] || die "start --cluster takes no --auth or --latest (and KANDRA_CASSANDRA_AUTH/LATEST must be unset): the cluster runs the default configuration without auth"
    cmd_start_cluster; return
  fi
  local config; config=$(config_name "$latest")
  [[ "$KH" == /* && "$KH" != / ]] || die "KANDRA_CASSANDRA_HOME must be an absolute path, got '$KH'"
  mkdir -p "$KH"

  # One start/stop at a time. fd 9 is closed for java below, else the node would hold the lock.
  exec 9>"$KH/.lock"
  flock -w "$TIMEOUT" 9 || die "another start/stop holds $KH/.lock"

  local running; running=$(cluster_running_nodes)
  [[ -z "$running" ]] || die "a cluster started by this script runs in $KH (nodes $running); run '$0 stop' first, or start the single node with its own KANDRA_CASSANDRA_HOME, KANDRA_CASSANDRA_PORT and KANDRA_CASSANDRA_STORAGE_PORT"

  local pid; pid=$(read_pid)
  if [[ -n "$pid" ]] && is_our_node "$pid"; then
    local rport rauth rconfig
    read -r rport rauth _ rconfig <"$STATEFILE" 2>/dev/null || true
    rconfig=${rconfig:-default}
    if [[ "$rauth" != "$auth" || "$rport" != "$PORT" || "$rconfig" != "$config" ]]; then
      die "a node is already running (pid $pid, port $rport, auth=$([[ $rauth == 1 ]] && echo on || echo off), config=$rconfig); run '$0 stop' first if you started it, or start this one with its own KANDRA_CASSANDRA_HOME, KANDRA_CASSANDRA_PORT and KANDRA_CASSANDRA_STORAGE_PORT"
    fi
    wait_ready "$pid"   # no-op if ready; waits if still starting
    echo "cassandra: already running, ready on 127.0.0.1:$PORT (pid $pid, config=$config)"
    return 0
  fi
  rm -f "$PIDFILE" "$STATEFILE"

  local p
  for p in "$PORT" "$STORAGE_PORT"; do
    if port_in_use "$p"; then die "port 127.0.0.1:$p is already in use by another process (not a node started by this script)"; fi
  done

  pick_java
  fetch_jars
  write_config "$auth" "$latest"
  jvm_args

  local t0; t0=$(now_ms)
  launch
  echo "$PORT $auth $CASSANDRA_VERSION $config" >"$STATEFILE"
  wait_ready "$pid"
  local ms=$(( $(now_ms) - t0 ))
  echo "cassandra: $CASSANDRA_VERSION ready on 127.0.0.1:$PORT in $((ms / 1000)).$((ms % 1000 / 100))s (pid $pid, auth=$([[ $auth == 1 ]] && echo "on, $SUPERUSER/$SUPERPASS" || echo off), config=$config, heap $HEAP)"
}

# ---------------------------------------------------------------------------
# Cluster mode.

# up_count OBSERVER N: how often node OBSERVER's log has seen node N come up
# (Gossiper: "InetAddress /127.0.0.N:PORT is now UP"), so that a restart can
# wait for one more.
up_count() {
  local log="$KH/node$1/run/logs/cassandra.log"
  [[ -f "$log" ]] || { echo 0; return; }
  grep -c "InetAddress /127\.0\.0\.$2:$STORAGE_PORT is now UP" "$log" || true
}

# An observer for node N: another node of the cluster that runs, or "".
observer_of() {
  local i
  for ((i = 1; i <= CLUSTER_NODES; i++)); do
    [[ $i == "$1" ]] && continue
    if ( use_node "$i"; p=$(read_pid); [[ -n "$p" ]] && is_our_node "$p" ); then echo "$i"; return; fi
  done
}

# start_node_proc N: launch cluster node N from its existing run dir, wait for
# CQL on its address, then until a running peer sees it UP (joined). Dies on
# failure, stopping that node only.
start_node_proc() {
  use_node "$1"
  local obs seen t0 ms deadline
  obs=$(observer_of "$1")
  seen=0; [[ -n "$obs" ]] && seen=$(up_count "$obs" "$1")
  jvm_args
  if [[ -f "$LOG" ]]; then mv -f "$LOG" "$LOG.previous"; fi   # keep the last run's log
  t0=$(now_ms)
  launch
  echo "$PORT 0 $CASSANDRA_VERSION cluster" >"$STATEFILE"
  wait_ready "$pid"
  if [[ -n "$obs" ]]; then
    deadline=$(( $(date +%s) + TIMEOUT ))
    until (( $(up_count "$obs" "$1") > seen )); do
      if (( $(date +%s) >= deadline )); then
        note "node $1 answers CQL on $ADDR:$PORT but node $obs has not seen it UP after ${TIMEOUT}s"
        kill_node "$pid"; rm -f "$PIDFILE" "$STATEFILE"; exit 1
      fi
      sleep 0.5
    done
  fi
  ms=$(( $(now_ms) - t0 ))
  echo "cassandra: node $1 ready on $ADDR:$PORT in $((ms / 1000)).$((ms % 1000 / 100))s (pid $pid${obs:+, seen UP by node $obs})"
}

cluster_lock() {
  [[ "$KH" == /* && "$KH" != / ]] || die "KANDRA_CASSANDRA_HOME must be an absolute path, got '$KH'"
  mkdir -p "$KH"
  exec 9>"$KH/.lock"
  flock -w "$TIMEOUT" 9 || die "another start/stop holds $KH/.lock"
}

cmd_start_cluster() {
  cluster_lock
  local spid; spid=$(read_pid)
  if [[ -n "$spid" ]] && is_our_node "$spid"; then
    die "a single node started by this script runs in $KH (pid $spid); run '$0 stop' first, or give the cluster its own KANDRA_CASSANDRA_HOME"
  fi
  local running; running=$(cluster_running_nodes)
  if [[ -n "$running" ]]; then
    [[ "$running" == "1 2 3" ]] || die "the cluster in $KH runs only nodes $running; '$0 start-node N' the others, or '$0 stop' and start again"
    local i
    for ((i = 1; i <= CLUSTER_NODES; i++)); do ( use_node "$i"; wait_ready "$(read_pid)" ); done
    echo "cassandra: cluster already running, ready on 127.0.0.1-$CLUSTER_NODES:$PORT"
    return 0
  fi
  local i p
  for ((i = 1; i <= CLUSTER_NODES; i++)); do
    use_node "$i"
    for p in "$PORT" "$STORAGE_PORT"; do
      if port_in_use "$p"; then die "port $ADDR:$p is already in use by another process (not a node started by this script)"; fi
    done
  done
  pick_java
  fetch_jars
  for ((i = 1; i <= CLUSTER_NODES; i++)); do use_node "$i"; rm -f "$PIDFILE" "$STATEFILE"; write_config 0 0 1; done
  echo "$CLUSTER_NODES $PORT $CASSANDRA_VERSION" >"$CLUSTERFILE"
  local t0; t0=$(now_ms)
  # One after another: a node joining while another joins can pick clashing
  # tokens, and node 2's token allocation needs the seed's ring.
  for ((i = 1; i <= CLUSTER_NODES; i++)); do start_node_proc "$i"; done
  local ms=$(( $(now_ms) - t0 ))
  echo "cassandra: $CASSANDRA_VERSION cluster of $CLUSTER_NODES ready on 127.0.0.1-$CLUSTER_NODES:$PORT in $((ms / 1000)).$((ms % 1000 / 100))s (datacenter1, heap $HEAP per node)"
}

# The cluster's version, for start-node: the jars it was started with.
load_cluster() {
  local n port
  read -r n port CASSANDRA_VERSION <"$CLUSTERFILE" 2>/dev/null || die "no cluster was started in $KH ('$0 start --cluster' first)"
  [[ "$port" == "$PORT" ]] || die "the cluster in $KH uses CQL port $port; set KANDRA_CASSANDRA_PORT=$port"
  LIB="$KH/lib-$CASSANDRA_VERSION"
  [[ -f "$LIB/.complete" ]] || die "the jars of cassandra-all $CASSANDRA_VERSION are gone from $LIB; '$0 stop' and start the cluster again"
}

cmd_start_node() {
  [[ $# == 1 ]] || die "usage: $0 start-node N"
  use_node "$1"
  cluster_lock
  load_cluster
  [[ -f "$RUN/conf/cassandra.yaml" ]] || die "node $1 has no run dir in $RUN; '$0 start --cluster' first"
  local pid; pid=$(read_pid)
  if [[ -n "$pid" ]] && is_our_node "$pid"; then
    wait_ready "$pid"
    echo "cassandra: node $1 already running, ready on $ADDR:$PORT (pid $pid)"
    return 0
  fi
  rm -f "$PIDFILE" "$STATEFILE"
  local p
  for p in "$PORT" "$STORAGE_PORT"; do
    if port_in_use "$p"; then die "port $ADDR:$p is already in use by another process (not a node started by this script)"; fi
  done
  pick_java
  start_node_proc "$1"
}

cmd_stop_node() {
  [[ $# == 1 ]] || die "usage: $0 stop-node N"
  use_node "$1"
  cluster_lock
  local pid; pid=$(read_pid)
  if [[ -z "$pid" ]] || ! is_our_node "$pid"; then
    rm -f "$PIDFILE" "$STATEFILE"
    echo "cassandra: node $1 not running"; return 0
  fi
  local t0; t0=$(now_ms)
  kill_node "$pid"
  rm -f "$PIDFILE" "$STATEFILE"
  local ms=$(( $(now_ms) - t0 ))
  echo "cassandra: node $1 stopped (pid $pid) in $((ms / 1000)).$((ms % 1000 / 100))s; its data stays in $RUN"
}

# TERM (Cassandra drains in a few seconds), up to 30 s, then KILL. Only this PID.
kill_node() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 60; i++)); do alive "$pid" || return 0; sleep 0.5; done
  note "pid $pid ignored SIGTERM for 30s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 20; i++)); do alive "$pid" || return 0; sleep 0.5; done
  die "pid $pid survived SIGKILL"
}

cmd_stop() {
  mkdir -p "$KH"
  exec 9>"$KH/.lock"
  flock -w 60 9 || die "another start/stop holds $KH/.lock"
  # Cluster nodes first: TERM them all, give them 15 s together, then KILL
  # the rest. A node often hangs in "Waiting for messaging service to
  # quiesce" (one did in 4 of 5 stops, TERMed together or one by one, until
  # the KILL), and the next start --cluster throws the data away anyway.
  # stop-node, whose node starts again with its data, keeps kill_node's 30 s.
  local i n npid pids=() stopped=""
  for ((i = 1; i <= CLUSTER_NODES; i++)); do
    npid=$(use_node "$i"; read_pid)
    if [[ -n "$npid" ]] && ( use_node "$i"; is_our_node "$npid" ); then
      kill -TERM "$npid" 2>/dev/null || true
      pids[i]=$npid
      stopped+=" node$i(pid $npid)"
    fi
  done
  for ((n = 0; n < 30; n++)); do
    for i in "${!pids[@]}"; do alive "${pids[i]}" || unset "pids[i]"; done
    (( ${#pids[@]} )) || break
    sleep 0.5
  done
  for i in "${!pids[@]}"; do
    note "node $i (pid ${pids[i]}) ignored SIGTERM for 15s; sending SIGKILL"
    kill -KILL "${pids[i]}" 2>/dev/null || true
  done
  for i in "${!pids[@]}"; do
    for ((n = 0; n < 20; n++)); do alive "${pids[i]}" || break; sleep 0.5; done
    if alive "${pids[i]}"; then die "node $i (pid ${pids[i]}) survived SIGKILL"; fi
  done
  for ((i = 1; i <= CLUSTER_NODES; i++)); do rm -f "$KH/node$i/cassandra.pid" "$KH/node$i/cassandra.state"; done
  rm -f "$CLUSTERFILE"
  if [[ -n "$stopped" ]]; then echo "cassandra: cluster stopped:$stopped"; fi

  local pid; pid=$(read_pid)
  if [[ -z "$pid" ]]; then [[ -n "$stopped" ]] || echo "cassandra: not running"; return 0; fi
  if ! is_our_node "$pid"; then
    rm -f "$PIDFILE" "$STATEFILE"
    echo "cassandra: not running (removed stale pid file for $pid)"; return 0
  fi
  kill_node "$pid"
  rm -f "$PIDFILE" "$STATEFILE"
  echo "cassandra: stopped (pid $pid)"
}

cmd_status() {
  if [[ -f "$CLUSTERFILE" ]]; then cmd_status_cluster; return; fi
  local pid; pid=$(read_pid)
  if [[ -z "$pid" ]] || ! is_our_node "$pid"; then echo "cassandra: not running"; return 1; fi
  local port auth version config why
  read -r port auth version config <"$STATEFILE" 2>/dev/null || true
  if why=$(probe_node 2>&1); then
    echo "cassandra: $version running and ready on 127.0.0.1:$port (pid $pid, auth=$([[ $auth == 1 ]] && echo on || echo off), config=${config:-default})"
    return 0
  fi
  echo "cassandra: pid $pid running but not answering CQL on 127.0.0.1:$port: $why"
  return 1
}

# One line per node; exit 0 only if every node answers CQL.
cmd_status_cluster() {
  local i pid why rc=0 version
  read -r _ _ version <"$CLUSTERFILE" 2>/dev/null || true
  for ((i = 1; i <= CLUSTER_NODES; i++)); do
    use_node "$i"
    pid=$(read_pid)
    if [[ -z "$pid" ]] || ! is_our_node "$pid"; then
      echo "cassandra: node $i not running ($ADDR)"; rc=1; continue
    fi
    if why=$(probe_node 2>&1); then
      echo "cassandra: node $i $version running and ready on $ADDR:$PORT (pid $pid)"
    else
      echo "cassandra: node $i pid $pid running but not answering CQL on $ADDR:$PORT: $why"; rc=1
    fi
  done
  return $rc
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) cmd_stop ;;
  stop-node) shift; cmd_stop_node "$@" ;;
  start-node) shift; cmd_start_node "$@" ;;
  status) cmd_status ;;
  *) echo "usage: $0 start [--auth] [--latest] | start --cluster | stop | stop-node N | start-node N | status" >&2; exit 2 ;;
esac
