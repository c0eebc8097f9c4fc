# shellcheck shell=sh
# papt CMD ARG...: an apt command (apt-get, apt-cache) on the private apt
# setup under $APT (scripts/deps.sh writes it: the host's mirror and the
# suites scripts/kernels names), never the host's own.  sid's Release files
# are valid for a week only, and a mirror may serve them past that.
papt() {
	cmd=$1
	shift
	"$cmd" -o Dir::Etc::SourceList="$APT/sources.list" \
		-o Dir::Etc::SourceParts="$APT/sources.list.d" \
		-o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" \
		-o APT::Sandbox::User=root -o Acquire::Check-Valid-Until=false -q "$@"
}
