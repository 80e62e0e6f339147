//! Sentence splitting and word tokens; expected values written by hand.

use ragjudge_core::text::{detect_lang, is_cjk, split_sentences, words, Lang};

#[test]
fn english_basic_and_runs() {
    assert_eq!(
        split_sentences("It works. Does it?! Yes... Really!  Done"),
        vec!["It works.", "Does it?!", "Yes...", "Really!", "Done"]
    );
    assert_eq!(split_sentences("Wait... what? ok"), vec!["Wait... what? ok"]);
}

#[test]
fn empty_input() {
    assert!(split_sentences("").is_empty());
    assert!(split_sentences("  \n\n \t ").is_empty());
}

#[test]
fn abbreviations_and_initials_do_not_split() {
    assert_eq!(
        split_sentences("Dr. Smith met Mr. Jones at St. Mary's. They talked, e.g. about A.I. Then they left."),
        vec!["Dr. Smith met Mr. Jones at St. Mary's.", "They talked, e.g. about A.I. Then they left."]
    );
    assert_eq!(
        split_sentences("J. K. Rowling wrote it. She lives in the U.S. Her books sell."),
        vec!["J. K. Rowling wrote it.", "She lives in the U.S. Her books sell."]
    );
    assert_eq!(
        split_sentences("Apples, pears, etc. Were sold. See Fig. 3 here."),
        vec!["Apples, pears, etc. Were sold.", "See Fig. 3 here."]
    );
    assert_eq!(split_sentences("So did I. Then we left."), vec!["So did I.", "Then we left."]);
    assert_eq!(
        split_sentences("Acme Inc. Sold it. The answer is no. No. 5 won."),
        vec!["Acme Inc. Sold it.", "The answer is no.", "No. 5 won."]
    );
}

#[test]
fn decimals_urls_emails() {
    assert_eq!(
        split_sentences(
            "Pi is 3.14 roughly. Visit www.example.com/a.html or mail bob@example.org. Version 2.0 is out."
        ),
        vec!["Pi is 3.14 roughly.", "Visit www.example.com/a.html or mail bob@example.org.", "Version 2.0 is out."]
    );
}

#[test]
fn quotes_and_brackets_stay_with_the_sentence() {
    assert_eq!(
        split_sentences("He said \"Stop.\" She left. (It rained.) \"Why?\" he asked."),
        vec!["He said \"Stop.\"", "She left.", "(It rained.)", "\"Why?\" he asked."]
    );
    assert_eq!(split_sentences("“Hello.” Then silence."), vec!["“Hello.”", "Then silence."]);
}

#[test]
fn lowercase_after_period_does_not_split() {
    assert_eq!(split_sentences("the value is approx. five. ok then"), vec!["the value is approx. five. ok then"]);
}

#[test]
fn chinese_terminators() {
    assert_eq!(
        split_sentences("今天天气很好。我们去公园吧！你去吗？我去；他不去"),
        vec!["今天天气很好。", "我们去公园吧！", "你去吗？", "我去；", "他不去"]
    );
    assert_eq!(split_sentences("他说：“你好。”然后走了。"), vec!["他说：“你好。”", "然后走了。"]);
    assert_eq!(split_sentences("「真的嗎？」她問。"), vec!["「真的嗎？」", "她問。"]);
    assert_eq!(split_sentences("等一下……好吧．结束"), vec!["等一下……", "好吧．", "结束"]);
}

#[test]
fn mixed_english_and_chinese() {
    assert_eq!(
        split_sentences("我喜欢RAG。It works well. 你呢？Great!我也是"),
        vec!["我喜欢RAG。", "It works well.", "你呢？", "Great!", "我也是"]
    );
}

#[test]
fn blank_lines_always_split() {
    assert_eq!(
        split_sentences("Title without stop\n\nbody text here\nstill body\r\n \r\nlast"),
        vec!["Title without stop", "body text here\nstill body", "last"]
    );
}

#[test]
fn english_words() {
    assert_eq!(
        words("Don't panic: state-of-the-art RAG costs $3.50, or 1,000 yen (O’Brien's)."),
        vec!["Don't", "panic", "state", "of", "the", "art", "RAG", "costs", "3.50", "or", "1,000", "yen", "O’Brien's"]
    );
    assert_eq!(words("'quoted' end."), vec!["quoted", "end"]);
    assert_eq!(words("café naïve Zürich"), vec!["café", "naïve", "Zürich"]);
    assert_eq!(words("e\u{301}te"), vec!["e\u{301}te"]);
    assert!(words(" ,.;!? ").is_empty());
}

#[test]
fn chinese_words_are_characters() {
    assert_eq!(words("检索增强生成。"), vec!["检", "索", "增", "强", "生", "成"]);
    assert_eq!(words("用RAG回答2个问题"), vec!["用", "RAG", "回", "答", "2", "个", "问", "题"]);
    assert_eq!(words("カタカナと한국"), vec!["カ", "タ", "カ", "ナ", "と", "한", "국"]);
}

#[test]
fn language_detection() {
    assert!(is_cjk('语'));
    assert_eq!(detect_lang("这是一个中文句子。"), Lang::Zh);
    assert_eq!(detect_lang("This is English."), Lang::En);
    // 3 Han ideographs among 10 letters: exactly 30%.
    assert_eq!(detect_lang("abcdefg中文字"), Lang::Zh);
    // 2 of 9: below 30%.
    assert_eq!(detect_lang("abcdefg中文"), Lang::En);
}
