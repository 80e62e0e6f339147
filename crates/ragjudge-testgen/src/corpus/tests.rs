use super::*;

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn reads_every_kind_and_skips_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "a.md", b"# Tides\n\nThe *Moon* pulls the [sea](http://x).\nIt rises twice a day.\n\n- neap\n- spring\n");
    write(
        d,
        "b/page.html",
        b"<html><head><title>Volcanoes</title><style>p{color:red}</style></head>\
          <body><h1>Lava</h1><p>Magma erupts<br>as lava.</p><script>var x = 1;</script><div>Ash   falls.</div></body></html>",
    );
    write(d, "c.txt", "Plain text, caf\u{e9}.\n".as_bytes());
    write(d, "d.jsonl", b"{\"id\": \"j1\", \"text\": \"One.\", \"title\": \"T\", \"meta\": {\"k\": 1}}\n\n");
    write(d, "e.txt", b"abc\x00def");
    write(d, "f.txt", b"caf\xe9");
    write(d, "g.pdf", b"%PDF-1.4");
    write(d, ".hidden.txt", b"secret");
    let corpus = read_corpus(&[d.to_path_buf()], ReadOptions::default()).unwrap();
    let ids: Vec<&str> = corpus.documents.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(ids, ["a.md", "b/page.html", "c.txt", "j1"]);
    let md = &corpus.documents[0];
    assert_eq!(md.title.as_deref(), Some("Tides"));
    assert_eq!(md.text, "Tides\n\nThe Moon pulls the sea. It rises twice a day.\n\nneap\n\nspring");
    let html = &corpus.documents[1];
    assert_eq!(html.title.as_deref(), Some("Volcanoes"));
    assert_eq!(html.text, "Lava\n\nMagma erupts\nas lava.\n\nAsh falls.");
    assert_eq!(corpus.documents[2].title.as_deref(), Some("c"));
    assert_eq!(corpus.documents[3].meta["k"], 1);
    assert!(corpus.documents[3].source.ends_with("d.jsonl:1"));
    let reasons: Vec<(String, String)> = corpus
        .skipped
        .iter()
        .map(|s| (Path::new(&s.source).file_name().unwrap().to_string_lossy().into_owned(), s.reason.clone()))
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert_eq!(reasons[0], ("e.txt".into(), "binary file (contains NUL bytes)".into()));
    assert_eq!(reasons[1], ("f.txt".into(), "not UTF-8 (invalid byte at offset 3)".into()));
    assert!(reasons[2].1.starts_with("not a collection file"));
}

#[test]
fn passages_become_documents_with_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "docs.jsonl",
        br#"{"doc_id": "d01", "title": "Water", "passages": [{"id": "d01#1", "text": "A."}, {"text": "B."}]}"#,
    );
    let corpus = read_corpus(&[dir.path().join("docs.jsonl")], ReadOptions::default()).unwrap();
    let ids: Vec<&str> = corpus.documents.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(ids, ["d01#1", "d01#2"]);
    assert_eq!(corpus.documents[1].meta["doc_id"], "d01");
    assert_eq!(corpus.documents[1].title.as_deref(), Some("Water"));
}

#[test]
fn bad_jsonl_lines_name_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(
        &path,
        "{\"id\": \"a\", \"text\": \"ok\"}\n{\"id\": 3, \"text\": \"x\"}\n{\"id\": \"c\"}\nnot json\n",
    )
    .unwrap();
    let err = read_corpus(std::slice::from_ref(&path), ReadOptions::default()).unwrap_err().to_string();
    assert!(err.ends_with("bad.jsonl:2: id: expected a string, found number"), "{err}");
    let corpus = read_corpus(std::slice::from_ref(&path), ReadOptions { skip_invalid: true }).unwrap();
    assert_eq!(corpus.documents.len(), 1);
    let reasons: Vec<&str> = corpus.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons[0], "id: expected a string, found number");
    assert_eq!(reasons[1], "text: missing (and no passages)");
    assert!(reasons[2].starts_with("json: expected ident"), "{}", reasons[2]);
    assert!(corpus.skipped[2].source.ends_with("bad.jsonl:4"));
}

#[test]
fn an_empty_collection_is_an_error_with_the_first_reason() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.bin", b"\x00\x01");
    write(dir.path(), "y.txt", b"   \n");
    let err = read_corpus(&[dir.path().to_path_buf()], ReadOptions::default()).unwrap_err().to_string();
    assert!(err.starts_with("empty collection: 2 file(s) or line(s) skipped, first "), "{err}");
    assert!(err.ends_with("not a collection file (.jsonl, .txt, .md, .html)"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let err = read_corpus(&[empty.path().to_path_buf()], ReadOptions::default()).unwrap_err().to_string();
    assert_eq!(err, "empty collection: no files found");
}
