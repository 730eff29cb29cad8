# bash completion for ttv(1): options, export formats, sort keys, reader
# names, and files or directories for the trace and the path options.
_ttv()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}

	case $prev in
	-e|--export)
		COMPREPLY=($(compgen -W 'chrome-json collapsed' -- "$cur"))
		return ;;
	--sort)
		COMPREPLY=($(compgen -W 'name count total self min median p90
		    p99 max samples' -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W 'xray fxt coreprofiler ctf' -- "$cur"))
		return ;;
	--by)
		COMPREPLY=($(compgen -W 'function path' -- "$cur"))
		return ;;
	--normalize)
		COMPREPLY=($(compgen -W 'calls total' -- "$cur"))
		return ;;
	-o|--output|--instr-map|--query-file|--diff)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--sysroot)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	-t|--thread|-f|--function|--hide|--search|--max-depth|--query|--calls|--callers|--callees|--range|--range-base|--match-strip|--min-change|--fail-above)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '--info --stats --markers --search
		    --query --query-file --calls --callers --callees --tree
		    --diff --by --normalize --match-strip --range-base
		    --min-change --fail-above --fail-on-new
		    --range --tsv --csv --json --spreadsheet-safe --sort
		    --ascending --export
		    --output --per-thread --max-depth --thread --function
		    --hide --instr-map --sysroot --format --strict --from-now --follow
		    --no-state --index --no-index --help --version' -- "$cur"))
		return
	fi
	# A trace: a file, or a CTF trace directory.
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _ttv ttv
