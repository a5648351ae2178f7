#!/bin/sh
# Writes rdc's shell completion where Debian's shells look, from rdc's own picocli model:
#   $2/rdc   bash (/usr/share/bash-completion/completions/rdc)
#   $2/_rdc  zsh  (/usr/share/zsh/vendor-completions/_rdc): the same script through zsh's bashcompinit
# usage: completions.sh <rdc.jar> <out-dir>
set -eu
jar=$1
out=$2
mkdir -p "$out"
# (without its "#!/usr/bin/env bash" line: a completion file is sourced, never run)
java -cp "$jar" io.rediacc.gpu.cli.RdcMain completion | sed 1d > "$out/rdc"
{
  echo '#compdef rdc'
  echo '# rdc completion for zsh: picocli'"'"'s bash completion through bashcompinit'
  echo 'autoload -U +X bashcompinit && bashcompinit'
  cat "$out/rdc"
  echo '# complete the word that loaded this file'
  echo '_bash_complete -F _complete_rdc "$@"'
} > "$out/_rdc"
