//! HCAT functionality metrics (seed 003, section 3): context relevancy, groundedness (embedding and
//! NLI), completeness with the Wasserstein distance, answer relevancy and a RAGAS-like mean.
