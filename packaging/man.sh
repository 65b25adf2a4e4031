#!/usr/bin/env bash
# man.sh CARLOS OUT VERSION: writes carlos(1) to OUT (gzip -9n) from the built
# command's own help, with help2man (Debian's): the synopsis and the command
# list from `carlos --help-all`, then a COMMANDS section with the full `-h`
# of every command (options, environment, exit codes), found by walking
# --help-all's tree, so a new command appears without editing anything here.
# Run by packaging/CPack.cmake when cpack installs.
set -euo pipefail
carlos=$1 out=$2 version=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The commands: --help-all lists each top-level command at column 0 and its
# subcommands, if any, 4 spaces in under "  Subcommands:".
commands=()
top="" in_sub=0 seen_list=0
while IFS= read -r line; do
  [ "$line" = "Subcommands:" ] && { seen_list=1; continue; }
  [ "$seen_list" = 1 ] || continue
  if [[ "$line" =~ ^([a-z][a-z0-9-]*)$ ]]; then
    top=${BASH_REMATCH[1]} in_sub=0
    [ "$top" = help ] || commands+=("$top")
  elif [ "$line" = "  Subcommands:" ]; then
    in_sub=1
    unset 'commands[${#commands[@]}-1]' # a group: its subcommands are listed instead
  elif [ "$in_sub" = 1 ] && [[ "$line" =~ ^\ \ \ \ ([a-z][a-z0-9-]*)\  ]]; then
    commands+=("$top ${BASH_REMATCH[1]}")
  fi
done < <("$carlos" --help-all)
[ ${#commands[@]} -gt 5 ] || { echo "man.sh: found only ${#commands[@]} commands in --help-all" >&2; exit 1; }

# roff: each command's help as unfilled text; a backslash or a line starting
# with . or ' must not be read as roff.
{
  echo "[COMMANDS]"
  for c in "${commands[@]}"; do
    echo ".SS \"carlos $c\""
    echo ".nf"
    # shellcheck disable=SC2086 # $c is "group sub": two words on purpose
    "$carlos" $c -h | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
    echo ".fi"
  done
  echo "[SEE ALSO]"
  echo "/usr/share/doc/carlos/operator.md (installing, configuring and operating a box),"
  echo "/usr/share/doc/carlos/enroll.md (the enroller), /usr/share/doc/carlos/DESIGN.md."
} >"$tmp/include"

help2man --no-info --no-discard-stderr --section=1 --version-string="$version" \
  --help-option=--help-all --include="$tmp/include" \
  --name="the CARLOS box agent and its root and operator commands" \
  --output="$tmp/carlos.1" "$carlos"
gzip -9n <"$tmp/carlos.1" >"$out.tmp"
mv "$out.tmp" "$out"
