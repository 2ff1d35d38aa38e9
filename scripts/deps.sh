#!/usr/bin/env bash
# Installs the Debian packages TileSight needs, only those missing. Runs as root or via sudo.
set -euo pipefail
packages=(cmake g++ make pkg-config nlohmann-json3-dev catch2 libcli11-dev libbenchmark-dev python3
          qt6-base-dev qt6-svg-dev libqcustomplot-dev xvfb xauth)  # the last five: the desktop app
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
