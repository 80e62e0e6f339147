//! A gate report as JUnit XML, which every CI shows as test results: one `<testcase>` per check
//! and system, a `<failure>` with the reason for each failed one.

use crate::gate::GateReport;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;

/// The suite's name in the XML.
pub const SUITE: &str = "ragjudge gate";

/// The report as a JUnit XML document.
#[allow(clippy::expect_used, reason = "quick-xml writing UTF-8 into memory cannot fail")]
pub fn to_junit_xml(report: &GateReport) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let tests = report.outcomes.len().to_string();
    let failures = report.failures().count().to_string();
    let counts = [("tests", tests.as_str()), ("failures", failures.as_str()), ("errors", "0")];
    let written: std::io::Result<()> = (|| {
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
        w.create_element("testsuites").with_attribute(("name", SUITE)).with_attributes(counts).write_inner_content(
            |w| {
                w.create_element("testsuite")
                    .with_attribute(("name", SUITE))
                    .with_attributes(counts)
                    .with_attributes([("skipped", "0"), ("time", "0")])
                    .write_inner_content(|w| {
                        for o in &report.outcomes {
                            let name = format!("{} [{}]", o.check, o.system);
                            let case = w
                                .create_element("testcase")
                                .with_attribute(("name", name.as_str()))
                                .with_attribute(("classname", "ragjudge.gate"))
                                .with_attribute(("time", "0"));
                            if o.passed {
                                case.write_inner_content(|w| {
                                    w.create_element("system-out").write_text_content(BytesText::new(&o.reason))?;
                                    Ok(())
                                })?;
                            } else {
                                case.write_inner_content(|w| {
                                    w.create_element("failure")
                                        .with_attribute(("message", o.reason.as_str()))
                                        .with_attribute(("type", "GateCheckFailed"))
                                        .write_text_content(BytesText::new(&o.reason))?;
                                    Ok(())
                                })?;
                            }
                        }
                        Ok(())
                    })?;
                Ok(())
            },
        )?;
        Ok(())
    })();
    written.expect("writing XML into memory cannot fail");
    let mut xml = String::from_utf8(w.into_inner()).expect("quick-xml writes UTF-8");
    xml.push('\n');
    xml
}
