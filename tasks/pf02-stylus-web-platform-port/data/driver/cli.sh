# cli.sh MODE BUILD INPUT: the grader's runs of the built tree's bin/stylus
# (pf02), from the folder above INPUT's test/, so no recorded output names
# where that tree sits.
#   case     INPUT is a .styl file under test/cases: compiled with --print
#            and the flags its name implies (the rules of stylus's
#            test/run.js, as command-line flags), the CSS on stdout
#   convert  INPUT is a .css file under test/converter: --css on stdin,
#            the Stylus it converts to on stdout
#   deps     INPUT is a .styl file under test/deps-resolver: --deps
set -eu
mode=$1 build=$2 input=$3
root=${input%/test/*}
rel=${input#"$root"/}
name=$(basename "$input")
cd "$root"
case $mode in
case)
	set -- --include test/images --include test/cases/import.basic
	case $name in *compress*) set -- "$@" --compress ;; esac
	case $name in *include*) set -- "$@" --include-css ;; esac
	case $name in *prefix.*) set -- "$@" --prefix prefix- ;; esac
	case $name in *hoist.*) set -- "$@" --hoist-atrules ;; esac
	case $name in *resolver*) set -- "$@" --resolve-url ;; esac
	exec "$build/bin/stylus" "$@" --print "$rel"
	;;
convert) exec "$build/bin/stylus" --css <"$rel" ;;
deps) exec "$build/bin/stylus" --deps "$rel" ;;
*)
	echo "cli.sh: unknown mode $mode" >&2
	exit 64
	;;
esac
