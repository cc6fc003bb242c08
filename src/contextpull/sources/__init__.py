"""Corpora that live elsewhere: fetched into a local folder, then ingested like any folder.

A source is a working copy the ingest reads (``contextpull ingest URL``): a git
repository (:mod:`.git`), or a site, a file or an llms.txt over HTTP
(:mod:`.site`). The
store, the index and the tools never know where the files came from, so a
fetched corpus behaves exactly as a local one. Fetching never touches the
working copy until the new files are all here: a network failure leaves the
last good copy, and its store, as they were.

Import from the modules (:mod:`.kinds`, :mod:`.git`, :mod:`.site`): this
package imports none of them, so deciding that an argument is a local folder
never loads git's helpers or an HTTP client.
"""
