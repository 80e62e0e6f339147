//! `calibrate` without `--apply`: join the scores to the labels, fit, write the calibrator and
//! the report, print the report.

use super::{keys, CalibrateArgs};
use anyhow::{bail, Context as _, Result};
use ragjudge_artifacts::{check_not_input, Provenance};
use ragjudge_core::table::{join_numbers, JoinKeys};
use ragjudge_stats::calibration::LabelledScores;

/// Fits a calibrator: the scores joined to the labels, then the library's calibration job.
pub(super) fn run(args: &CalibrateArgs) -> Result<()> {
    let labels_path = args.labels.as_deref().context("--labels is needed to fit (or give --apply FILE)")?;
    let label_col = args.label_col.as_deref().context("--label-col is needed to fit")?;
    if args.score_cols.is_empty() {
        bail!("--score-col is needed: at least one score column");
    }
    let on = JoinKeys::named_or_default(args.on.as_deref(), &args.scores, labels_path)?;
    if let Some(m) = &on.system_missing {
        eprintln!("note: {m}");
    }
    let keys = keys(&on.keys)?;
    let params = args.params().check()?;
    let score_cols: Vec<&str> = args.score_cols.iter().map(String::as_str).collect();
    let join = join_numbers(&args.scores, &score_cols, labels_path, label_col, &keys)?;
    for r in &join.repeated {
        eprintln!("warning: {r}");
    }
    if join.x.is_empty() {
        bail!(
            "no row of {} has all score columns and a label in {} on keys {}",
            args.scores.display(),
            labels_path.display(),
            keys.join(",")
        );
    }
    let data = LabelledScores {
        score_columns: args.score_cols.clone(),
        label_column: label_col.to_string(),
        x: join.x,
        y: join.y,
    };
    let inputs = [args.scores.as_path(), labels_path];
    for output in [&args.save, &args.report_file].into_iter().flatten() {
        check_not_input(output, &inputs)?;
    }
    let mut provenance = Provenance::of_this_process();
    provenance.add_inputs(&inputs)?;
    let on = keys.iter().map(|k| k.to_string()).collect();
    let calibration = params.calibrate(&data, on, join.left_rows, provenance)?;
    calibration.write(args.save.as_deref(), args.report_file.as_deref())?;
    if args.json {
        print!("{}", calibration.report_json()?);
    } else {
        print!("{}", calibration.report.body.render());
    }
    Ok(())
}
