//! Which questions the self-contained rule rejects, and why: one question per line on stdin
//! (a JSON string or plain text), one line out per rejected question (`line<TAB>why<TAB>question`),
//! and a count at the end. Run it on questions people wrote to see what the rule costs:
//!
//!     cargo run --release -p ragjudge-testgen --example self_contained < questions.txt
use ragjudge_testgen::standalone::unresolved_reference;
use std::io::BufRead;

fn main() -> std::io::Result<()> {
    let (mut asked, mut rejected) = (0usize, 0usize);
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line?;
        let question = serde_json::from_str::<String>(&line).unwrap_or(line);
        if question.trim().is_empty() {
            continue;
        }
        asked += 1;
        if let Some(why) = unresolved_reference(&question) {
            rejected += 1;
            println!("{}\t{why}\t{question}", i + 1);
        }
    }
    println!("rejected {rejected} of {asked}");
    Ok(())
}
