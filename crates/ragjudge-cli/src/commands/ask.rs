//! `ragjudge ask`: one question to a judge model, to check a judge set-up.

use crate::args::JudgeArgs;
use crate::backends;
use anyhow::Result;
use clap::Args;
use ragjudge_models::{GenParams, Generation, LabelProbs, Prompt, Usage};
use serde::Serialize;

/// `ragjudge ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The user message.
    pub prompt: String,
    /// A system message.
    #[arg(long, default_value = "")]
    pub system: String,
    /// Single-token labels: print their next-token probabilities instead of generating.
    #[arg(long, value_delimiter = ',')]
    pub labels: Vec<String>,
    /// Most tokens to generate.
    #[arg(long, default_value_t = 256)]
    pub max_tokens: u32,
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Print JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `ask --json`: the judge, its generation or label probabilities, and its usage.
#[derive(Serialize)]
struct Reply<'a> {
    judge: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    generation: Option<&'a Generation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label_probs: Option<&'a LabelProbs>,
    usage: Usage,
}

/// Runs `ragjudge ask`.
pub fn run(args: &AskArgs) -> Result<()> {
    let judge = backends::judge(&args.judge)?;
    let prompt = Prompt::chat(&args.system, args.prompt.clone());
    if args.labels.is_empty() {
        let params = GenParams { max_tokens: args.max_tokens, ..GenParams::default() };
        let g = judge.generate(&prompt, &params)?;
        if args.json {
            let reply =
                Reply { judge: judge.identity(), generation: Some(&g), label_probs: None, usage: judge.usage() };
            println!("{}", serde_json::to_string(&reply)?);
        } else {
            println!("{}", g.text);
        }
        return Ok(());
    }
    let p = judge.label_probs(&prompt, &args.labels)?;
    if args.json {
        let reply = Reply { judge: judge.identity(), generation: None, label_probs: Some(&p), usage: judge.usage() };
        println!("{}", serde_json::to_string(&reply)?);
    } else {
        for (l, q) in p.labels.iter().zip(&p.probs) {
            println!("{l}\t{q:.6}");
        }
        if let Some(m) = p.label_mass {
            println!("(labels hold {:.1}% of the next-token probability)", m * 100.0);
        }
    }
    Ok(())
}
