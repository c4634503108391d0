# bash completion for gotrace                                -*- shell-script -*-
#
# Completes the commands, each command's options and their values, trace
# files, the command to run after `gotrace run`, and the GOTRACE_* variables
# (after `gotrace help`, which explains one). The command and variable lists
# come from `gotrace help` itself, so they never go stale.

_gotrace_variables()
{
    "$1" help 2>/dev/null | awk '$1 ~ /^GOTRACE_/ { print $1 }'
}

_gotrace_commands()
{
    "$1" help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }'
}

_gotrace()
{
    local cur prev words cword
    _init_completion -n = || return

    local cmd i
    for ((i = 1; i < cword; i++)); do
        if [[ ${words[i]} != -* ]]; then
            cmd=${words[i]}
            break
        fi
    done

    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$(_gotrace_commands "$1") --version --help" -- "$cur"))
        return
    fi

    case $cmd in
    run)
        # Past the command to run, complete as for that command.
        local j
        for ((j = i + 1; j < cword; j++)); do
            case ${words[j]} in
            --) _command_offset $((j + 1)); return ;;
            -o | -s | -p | -f | -F | --output | --stacks | --period | --format | --flight) ((j++)) ;;
            -*) ;;
            *) _command_offset $j; return ;;
            esac
        done
        case $prev in
        -o | --output) _filedir; return ;;
        -f | --format) COMPREPLY=($(compgen -W "23 26" -- "$cur")); return ;;
        -s | --stacks) COMPREPLY=($(compgen -W "0 16 32 64 128" -- "$cur")); return ;;
        -p | --period) COMPREPLY=($(compgen -W "250ms 1s 2s 10s" -- "$cur")); return ;;
        -F | --flight) COMPREPLY=($(compgen -W "10s 30s 64MB 256MB" -- "$cur")); return ;;
        esac
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "-o -s -p -f -F -q --view --output --stacks --period --format --flight --quiet --help --" -- "$cur"))
        else
            COMPREPLY=($(compgen -c -- "$cur"))
        fi
        ;;
    view)
        if [[ $cur == -pprof=* ]]; then
            COMPREPLY=($(compgen -P -pprof= -W "sync net syscall sched" -- "${cur#-pprof=}"))
        elif [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "-pprof= -http= --help" -- "$cur"))
            [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        else
            _filedir 'trace'
            [[ ${#COMPREPLY[@]} -eq 0 ]] && _filedir
        fi
        ;;
    heap | stat | mutex | cpu)
        case $prev in
        -pprof | -mapped-pprof) _filedir 'pb.gz'; return ;;
        -top) COMPREPLY=($(compgen -W "10 20 50" -- "$cur")); return ;;
        esac
        if [[ $cur == -* ]]; then
            local opts="-top --help"
            [[ $cmd == stat ]] && opts+=" -json" || opts+=" -pprof"
            [[ $cmd == heap ]] && opts+=" -mapped-pprof"
            COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        else
            _filedir 'trace'
            [[ ${#COMPREPLY[@]} -eq 0 ]] && _filedir
        fi
        ;;
    help)
        COMPREPLY=($(compgen -W "$(_gotrace_commands "$1") $(_gotrace_variables "$1")" -- "$cur"))
        ;;
    esac
} &&
    complete -F _gotrace gotrace

# ex: filetype=sh
