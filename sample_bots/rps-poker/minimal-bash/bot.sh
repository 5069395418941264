#!/usr/bin/env bash
# The smallest valid Arena bot in bash: a line with "id": is a request.
while IFS= read -r line; do
  case $line in
    *'"id":'*) id=${line#*\"id\":}; echo "{\"id\":${id%%[,\}]*},\"action\":0}" ;;
    *'"type":"quit"'*) exit 0 ;;
  esac
done
