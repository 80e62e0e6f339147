//! TREC RAG metrics as in Open RAG Eval (seed 002).
