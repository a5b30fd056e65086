# bash completion for ciao(1).
# Generated from the ciao command's own --help specification; do not edit.
# Regenerate with Scripts/generate-cli-docs.sh.
# Use: source this file (from ~/.bashrc), or copy it to ~/.local/share/bash-completion/completions/ciao.

_ciao_interfaces() {
    local names=(/sys/class/net/*)
    [[ -e ${names[0]} ]] || return 0
    printf '%s\n' "${names[@]##*/}"
}

_ciao() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev= i
    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
    # bash splits --name=VALUE at the "=" (COMP_WORDBREAKS).
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && (( COMP_CWORD > 2 )); then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    if (( COMP_CWORD == 1 )); then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W '-h --help -V --version' -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W 'browse publish resolve types domains resolve-host resolve-address query decode explore help' -- "$cur")
        fi
        return 0
    fi
    # The options; those taking a value; those taking an interface name; whether arguments are files.
    local options= values= interfaces= files=
    case ${COMP_WORDS[1]} in
        browse)
            options='-a --all -r --resolve -t --terminate -c --cache -l --ignore-local --timeout -i --interface -4 -6 -v --verbose -d --domain --server -p --parsable --json -k --no-db-lookup -h --help'
            values='--timeout -i --interface -d --domain --server'
            interfaces='-i --interface'
            ;;
        publish)
            options='-l --listener --no-rename -s --subtype --key --host --address -i --interface -4 -6 -v --verbose -d --domain --server --json -h --help'
            values='-s --subtype --key --host --address -i --interface -d --domain --server'
            interfaces='-i --interface'
            ;;
        resolve)
            options='--timeout -i --interface -4 -6 -v --verbose --server -p --parsable --json -k --no-db-lookup -h --help'
            values='--timeout -i --interface --server'
            interfaces='-i --interface'
            ;;
        types)
            options='-t --terminate -i --interface -4 -6 -v --verbose -d --domain --server -p --parsable --json -k --no-db-lookup -h --help'
            values='-i --interface -d --domain --server'
            interfaces='-i --interface'
            ;;
        domains)
            options='-t --terminate -R --registration --server -p --parsable --json -k --no-db-lookup -h --help'
            values='--server'
            ;;
        resolve-host)
            options='--timeout --server -i --interface -4 -6 -v --verbose --json -h --help'
            values='--timeout --server -i --interface'
            interfaces='-i --interface'
            ;;
        resolve-address)
            options='--timeout -i --interface -4 -6 -v --verbose --json -h --help'
            values='--timeout -i --interface'
            interfaces='-i --interface'
            ;;
        query)
            options='-c --continuous --timeout --server -i --interface -4 -6 -v --verbose --json -h --help'
            values='--timeout --server -i --interface'
            interfaces='-i --interface'
            ;;
        decode)
            options='-h --help'
            files=1
            ;;
        explore)
            options='-i --interface -4 -6 -h --help'
            values='-i --interface'
            interfaces='-i --interface'
            ;;
        *) return 0 ;;
    esac
    if [[ -n $prev && " $interfaces " == *" $prev "* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_ciao_interfaces)" -- "$cur")
        return 0
    elif [[ -n $prev && " $values " == *" $prev "* ]]; then
        COMPREPLY=()
        return 0
    fi
    local ended=
    for (( i = 2; i < COMP_CWORD; i++ )); do [[ ${COMP_WORDS[i]} == -- ]] && ended=1; done
    if [[ -z $ended && $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
    elif [[ -n $files ]]; then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    else
        COMPREPLY=()
    fi
    return 0
}

complete -F _ciao ciao
