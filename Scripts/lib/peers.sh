# peers.sh — sourced by Scripts/interop.sh, Benchmarks/wire-benchmark.sh and
# Benchmarks/soak-benchmark.sh: installs the real mDNS peers (Debian's avahi-daemon and friends,
# PyPI's python-zeroconf in a venv) without ever starting a daemon in the root namespace.
#
# The caller defines log, die, VENV, ZEROCONF_SPEC and SKIP_INSTALL, then calls
#   install_peer_packages [COMMAND:PACKAGE ...]   (extra commands beyond the common ones)
#   ensure_zeroconf                                (sets ZEROCONF_PYTHON)
#   release_product PRODUCT SCRATCH [FLAG...]      (sets BUILT and BUILD)
#   run_driver PREFIX GRACE LIMIT DRIVER [ARG...]  (the driver, its labs cleaned up on exit)
#   stop_driver_and_labs PID PREFIX SECONDS        (from its exit trap)

# Installs the Debian packages whose commands (or python modules) are missing.
install_peer_packages() {
  local missing=() pair
  for pair in avahi-daemon:avahi-daemon avahi-browse:avahi-utils avahi-publish-service:avahi-utils \
              dbus-daemon:dbus ip:iproute2 nft:nftables unshare:util-linux sysctl:procps "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  [ -x /usr/bin/python3 ] || missing+=(python3)
  /usr/bin/python3 -c 'import dbus' 2>/dev/null || missing+=(python3-dbus)
  /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
  # nss-mdns answers getent for .local names and reverse lookups through avahi-daemon; the suites
  # use it only inside mount namespaces with an nsswitch.conf of their own.
  ls /usr/lib/*/libnss_mdns.so.2 >/dev/null 2>&1 || missing+=(libnss-mdns)
  [ ${#missing[@]} -gt 0 ] || return 0
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  [ -n "$SKIP_INSTALL" ] && die "missing packages: ${missing[*]} (installs are switched off)"
  log "installing ${missing[*]}"
  # wireshark-common asks whether non-root users may capture: answer no, without a prompt
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
  # The packages must not start their daemons in the root namespace (avahi-daemon would announce
  # on the real interfaces): deny service starts while installing, unless a policy exists already;
  # where systemd runs, mask the units too, so no later socket or D-Bus activation either.
  local policy="" rc=0 nsswitch
  # libnss-mdns's install adds mdns to the machine's nsswitch.conf: it is put back afterwards.
  nsswitch=$(mktemp) && cp -p /etc/nsswitch.conf "$nsswitch"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && policy=1
  fi
  if [ -d /run/systemd/system ]; then systemctl mask avahi-daemon.service avahi-daemon.socket >&2; fi
  # A fresh machine may have no package lists yet: on failure, fetch them and try once more.
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2 || {
    apt-get update >&2 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
  } || rc=$?
  [ -n "$policy" ] && rm -f /usr/sbin/policy-rc.d
  cmp -s "$nsswitch" /etc/nsswitch.conf || { cp -p "$nsswitch" /etc/nsswitch.conf && log "restored /etc/nsswitch.conf"; }
  rm -f "$nsswitch"
  [ "$rc" = 0 ] || die "apt-get install failed ($rc)"
}

# Sets ZEROCONF_PYTHON: the caller's, or a venv at $VENV with $ZEROCONF_SPEC (made if missing).
ensure_zeroconf() {
  if [ -z "${ZEROCONF_PYTHON:-}" ]; then
    ZEROCONF_PYTHON="$VENV/bin/python"
    if ! "$ZEROCONF_PYTHON" -c 'import zeroconf' 2>/dev/null; then
      [ -n "$SKIP_INSTALL" ] && die "no zeroconf in $VENV (installs are switched off; set ZEROCONF_PYTHON)"
      log "creating $VENV with $ZEROCONF_SPEC"
      /usr/bin/python3 -m venv "$VENV"
      "$VENV/bin/pip" install --quiet --disable-pip-version-check "$ZEROCONF_SPEC" >&2
    fi
  fi
  "$ZEROCONF_PYTHON" -c 'import zeroconf, ifaddr' || die "$ZEROCONF_PYTHON cannot import zeroconf"
}

# Builds Apple's mDNSResponder (the mDNSPosix port) from its source tarball SRC into OUT (bin/mdnsd,
# bin/dns-sd, lib/libdns_sd.so, and VERSION: the version in the tarball's name, e.g. 2600.100.147),
# unless OUT has it already. Installs gcc, make and libmbedtls-dev if missing. Returns non-zero,
# with the build's last lines, on failure.
build_mdnsresponder() {
  local src=$1 out=$2 work
  [ -x "$out/bin/mdnsd" ] && return 0
  [ -f "$src" ] || { log "no mDNSResponder source at $src"; return 1; }
  local need=()
  command -v gcc >/dev/null 2>&1 || need+=(gcc)
  command -v make >/dev/null 2>&1 || need+=(make)
  dpkg -s libmbedtls-dev >/dev/null 2>&1 || need+=(libmbedtls-dev)
  if [ ${#need[@]} -gt 0 ]; then
    [ -n "$SKIP_INSTALL" ] && { log "missing ${need[*]} to build mDNSResponder (installs are off)"; return 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >&2 || return 1
  fi
  work=$(mktemp -d)
  tar -xzf "$src" -C "$work" || return 1
  local posix
  posix=$(find "$work" -maxdepth 2 -type d -name mDNSPosix | head -1)
  [ -n "$posix" ] || { log "no mDNSPosix directory in $src"; return 1; }
  log "building mDNSResponder from $src"
  (cd "$posix" && make os=linux -j"$(nproc)" >"$work/build.log" 2>&1) || { tail -20 "$work/build.log" >&2; return 1; }
  mkdir -p "$out/bin" "$out/lib"
  cp "$posix/build/prod/mdnsd" "$out/bin/" && cp "$posix/build/prod/libdns_sd.so" "$out/lib/" \
    && cp "$posix/../Clients/build/dns-sd" "$out/bin/" || return 1
  basename "$src" .tar.gz | sed 's/^mDNSResponder-//' >"$out/VERSION"
  rm -rf "$work"
}

# release_product PRODUCT SCRATCH [FLAG...]: builds PRODUCT of the package at $ROOT in release
# mode (with the extra swift build FLAGs) into SCRATCH; sets BUILT to the executable's path and
# BUILD to the command, for the results. Exits through die() if the build fails.
release_product() {
  local product=$1 scratch=$2
  shift 2
  local flags=(-c release "$@" --scratch-path "$scratch")
  log "building $product (release) in $scratch"
  BUILD="swift build ${flags[*]} --product $product"
  (cd "$ROOT" && swift build "${flags[@]}" --product "$product" >&2) || die "release build failed"
  BUILT="$(cd "$ROOT" && swift build "${flags[@]}" --show-bin-path)/$product"
}

# run_driver PREFIX GRACE LIMIT DRIVER [ARG...]: runs a Python driver (stdlib only) for at most
# LIMIT seconds; an exit trap then stops it and what runs in its labs (namespaces PREFIX-*, GRACE
# seconds to end) and says where the results ($OUT) are. Returns the driver's status (124: out
# of time).
run_driver() {
  local prefix=$1 grace=$2 limit=$3 rc=0
  shift 3
  DRIVER_PID=""
  RUN_PREFIX=$prefix RUN_GRACE=$grace
  trap 'set +e; stop_driver_and_labs "$DRIVER_PID" "$RUN_PREFIX" "$RUN_GRACE"; log "results: $OUT"' EXIT
  trap 'exit 130' INT TERM
  timeout -k 10 "$limit" /usr/bin/python3 "$@" &
  DRIVER_PID=$!
  wait "$DRIVER_PID" || rc=$?
  DRIVER_PID=""
  [ "$rc" = 124 ] && log "the driver did not finish within $limit s"
  return "$rc"
}

# The safety net of an exit trap: stops the driver (PID, possibly empty) with TERM, then KILL after
# SECONDS, and deletes the namespaces named PREFIX-*, killing what still runs in them. The drivers
# remove their labs themselves; this covers a driver that could not.
stop_driver_and_labs() {
  local driver=$1 prefix=$2 seconds=$3 ns pid
  if [ -n "$driver" ] && kill -0 "$driver" 2>/dev/null; then
    kill -TERM "$driver"
    for _ in $(seq $((seconds * 10))); do kill -0 "$driver" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$driver" 2>/dev/null
  fi
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix-"); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
    ip netns del "$ns"
  done
}
