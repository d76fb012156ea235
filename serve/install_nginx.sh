#!/usr/bin/env bash
# Installs nginx from the Debian packages when it is missing (nginx-light, or nginx where there
# is no nginx-light; as root, or with sudo when not root), without starting the package's own
# service (a policy-rc.d answering 101 during the install, when none exists), and prints the
# path of the nginx binary. The proxy of toolmodel-cli's tests/gateway.rs (the gateway behind
# nginx with a public host name); the same steps as scale/run.sh's.
# Exit status non-zero, with the reason on stderr, when nginx is missing and cannot be installed.
set -euo pipefail

find_nginx() {
    command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true
}

nginx_bin="$(find_nginx)"
if [ -n "$nginx_bin" ]; then
    echo "$nginx_bin"
    exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    else
        echo "error: nginx is missing, and installing it needs root or sudo" >&2
        exit 1
    fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: nginx is missing, and there is no apt-get to install it" >&2
    exit 1
fi

# Keep the package from starting its own service (port 80) during the install.
policy=/usr/sbin/policy-rc.d
made_policy=""
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
    "${as_root[@]}" chmod 755 "$policy"
    made_policy=1
fi
install_status=0
{
    "${as_root[@]}" apt-get update -q &&
        if apt-cache show nginx-light >/dev/null 2>&1; then
            DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends nginx-light
        else
            DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends nginx
        fi
} >/dev/null || install_status=$?
if [ -n "$made_policy" ]; then
    "${as_root[@]}" rm -f "$policy"
fi
if [ "$install_status" -ne 0 ]; then
    echo "error: apt-get could not install nginx (status $install_status)" >&2
    exit 1
fi
nginx_bin="$(find_nginx)"
[ -n "$nginx_bin" ] || { echo "error: nginx is installed but not found" >&2; exit 1; }
echo "$nginx_bin"
