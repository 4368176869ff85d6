#!/bin/sh
# The container's command: migrate, then serve. Without DATABASE_URL or DATABASE_URL_FILE the node
# uses SQLite in the image's volume; with either it uses that alone (setting a default here rather
# than in the image's ENV is what lets DATABASE_URL_FILE work: both at once are refused).
set -eu
if [ -z "${DATABASE_URL:-}" ] && [ -z "${DATABASE_URL_FILE:-}" ]; then
  export DATABASE_URL="sqlite:${ALMONER_DATA_DIR:-/var/lib/almoner}/almoner.sqlite"
fi
node_modules/.bin/node bin/almoner.js migrate
exec node_modules/.bin/node bin/almoner.js serve
