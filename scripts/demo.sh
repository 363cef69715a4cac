#!/usr/bin/env bash
# make seed: build the BookStore seed, then show a release's data update reaching a user's store.
set -euo pipefail
seedkit=${1:-.build/debug/seedkit}
# Bold headings only on a terminal (and not under NO_COLOR): no raw escapes in logs or pipes.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
rule() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

rule "seedkit build: fixtures -> build/seed.sqlite"
"$seedkit" build

rule "a user installed release 1.0 (seeds/releases/1.0.sqlite), then added a book of their own"
mkdir -p build/demo
cp seeds/releases/1.0.sqlite build/demo/user.sqlite
sqlite3 build/demo/user.sqlite "INSERT INTO books (title, price, category_id) VALUES ('My own book', 5, 1)"
sqlite3 -header -column build/demo/user.sqlite "SELECT id, title, price FROM books ORDER BY id"

rule "seedkit status: what release 1.1 will do"
"$seedkit" status build/demo/user.sqlite

rule "seedkit migrate: apply migrations/0001-add-fourth-book.yml"
"$seedkit" migrate build/demo/user.sqlite
sqlite3 -header -column build/demo/user.sqlite "SELECT b.id, b.title, b.price, c.name AS category FROM books b JOIN categories c ON c.id = b.category_id ORDER BY b.id"

rule "seedkit migrate again: nothing to do, nothing duplicated"
"$seedkit" migrate build/demo/user.sqlite

rule "seedkit check-upgrade: every shipped seed, migrated, equals a fresh build"
"$seedkit" check-upgrade seeds/releases/*.sqlite
