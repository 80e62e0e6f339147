//! `ragjudge ask`: one question to a judge model, to check a judge set-up.

use crate::args::JudgeArgs;
use crate::backends;
use anyhow::Result;
use clap::Args;
use ragjudge_models::{GenParams, Prompt};
use serde_json::json;

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

/// Runs `ragjudge ask`.
pub fn run(args: &AskArgs) -> Result<()> {
    let judge = backends::judge(&args.judge)?;
    let prompt = Prompt::chat(&args.system, args.prompt.clone());
    if args.labels.is_empty() {
        let params = GenParams { max_tokens: args.max_tokens, ..GenParams::default() };
        let g = judge.generate(&prompt, &params)?;
        if args.json {
            println!("{}", json!({"judge": judge.identity(), "generation": g, "usage": judge.usage()}));
        } else {
            println!("{}", g.text);
        }
        return Ok(());
    }
    let p = judge.label_probs(&prompt, &args.labels)?;
    if args.json {
        println!("{}", json!({"judge": judge.identity(), "label_probs": p, "usage": judge.usage()}));
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
