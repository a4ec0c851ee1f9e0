# bash completion for persim (installed to share/bash-completion/completions/persim by
# `make install`; or `source packaging/persim-completion.bash`). Commands, each command's options,
# and the names persim itself lists (models, workloads, config keys).
_persim()
{
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=${COMP_WORDS[1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "run check crash trace list config sweep trace-program device --help --version" -- "$cur"))
        return
    fi
    case "$prev" in
        --config|--trace|--out|-o|--csv|--vcd) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --model) COMPREPLY=($(compgen -W "$(persim list models 2>/dev/null | awk 'NR > 1 {print $2}')" -- "$cur")); return ;;
        --workload) COMPREPLY=($(compgen -W "$(persim list workloads 2>/dev/null | awk '/^  [a-z]/ && $1 != "name" {print $1}')" -- "$cur")); return ;;
        --set) COMPREPLY=($(compgen -W "$(persim list keys 2>/dev/null | awk '/^  [a-z]/ && $1 != "key" {print $1 "="}')" -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
        --size) COMPREPLY=($(compgen -W "small default" -- "$cur")); return ;;
        --images) COMPREPLY=($(compgen -W "run model" -- "$cur")); return ;;
    esac
    local opts="--config --set --quiet --help"
    case "$cmd" in
        run) opts="$opts --model --workload --trace --out --csv --vcd --log-warp --size --seed --check --force" ;;
        check) opts="$opts --model --workload --trace --out --csv --size --seed" ;;
        crash) opts="$opts --model --workload --trace --out --csv --size --seed --points --images --at --sample --target --time-recovery --worst" ;;
        trace) opts="$opts --workload --out --size --seed" ;;
        list) opts="systems models workloads keys rtl --markdown --config --set" ;;
        config) opts="diff schema --config --set" ;;
        sweep) opts="-j --force --out --dry-run --emit-slurm" ; COMPREPLY=($(compgen -W "$opts" -f -- "$cur")); return ;;
        device) opts="$opts --out --host-path-ns --mlp --samples" ;;
    esac
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _persim persim
