# apt_install PACKAGE...: installs the Debian packages of the list that are missing (with sudo when
# not root); nothing when CWS_SKIP_APT is set. Sourced by scripts/setup.sh and scripts/setup-tests.sh.
apt_install() {
  [ -n "${CWS_SKIP_APT:-}" ] && return 0
  local missing=() p sudo_cmd=""
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  echo "setup: installing Debian packages: ${missing[*]}"
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq || echo "setup: apt-get update failed; trying the install with the current package lists"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
