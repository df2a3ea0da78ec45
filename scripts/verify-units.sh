#!/usr/bin/env bash
# Checks the systemd units in deploy/ with `systemd-analyze verify` (Debian package: systemd).
# systemd-analyze exits 0 on many problems it only warns about (an unknown key, a typo in a
# section name), so any output at all counts as a failure here.
# Exit: 0 clean, 1 a unit has a problem (the output says which), 69 systemd-analyze is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v systemd-analyze >/dev/null; then
  echo "verify-units: systemd-analyze not found: install the Debian package systemd (apt-get install systemd)" >&2
  exit 69
fi

units=(deploy/*.service)
status=0
for unit in "${units[@]}"; do
  # SYSTEMD_LOG_COLOR=0: plain text; --man=no: Documentation= points at the Pi's files, not man pages.
  if output=$(SYSTEMD_LOG_COLOR=0 systemd-analyze verify --man=no "$unit" 2>&1) && [ -z "$output" ]; then
    echo "verify-units: $unit: ok"
  else
    echo "verify-units: $unit: FAILED"
    printf '%s\n' "$output" | sed 's/^/  /'
    status=1
  fi
done
exit $status
