#!/usr/bin/env bash
# Installs a Debian package when its program is missing, without starting its service: sourced
# by scale/redis.sh and serve/prometheus/prometheus.sh.
#
#   install_debian_package PACKAGE PROGRAM
#
# apt-get as root, or with sudo; a policy-rc.d answering 101 during the install (when none
# exists) keeps the package's own service from starting: the servers run as the current user,
# never as system services. Returns non-zero when the program is missing and cannot be
# installed.

debian_as_root=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
    debian_as_root=(sudo -n)
fi

install_debian_package() {
    local package="$1" program="$2"
    if command -v "$program" >/dev/null 2>&1 || [ -x "/usr/bin/$program" ]; then
        return 0
    fi
    echo "== installing $package (Debian package)" >&2
    if [ "$(id -u)" -ne 0 ] && [ ${#debian_as_root[@]} -eq 0 ]; then
        echo "error: $program is missing, and installing $package needs root or sudo" >&2
        return 1
    fi
    local policy=/usr/sbin/policy-rc.d made_policy="" status=0
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | "${debian_as_root[@]}" tee "$policy" >/dev/null
        "${debian_as_root[@]}" chmod 755 "$policy"
        made_policy=1
    fi
    {
        "${debian_as_root[@]}" apt-get update -q &&
            DEBIAN_FRONTEND=noninteractive "${debian_as_root[@]}" apt-get install -y -q --no-install-recommends "$package"
    } >&2 || status=$?
    [ -n "$made_policy" ] && "${debian_as_root[@]}" rm -f "$policy"
    return "$status"
}
