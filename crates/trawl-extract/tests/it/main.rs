//! trawl-extract's integration tests, one binary: a module per concern (shapes of real pages,
//! documents, PDFs). Fixtures stay beside this folder (`tests/docs`, `tests/pages`, `tests/pdf`).

mod accordions;
mod class_names;
mod common;
mod disclosures;
mod documents;
mod elementor;
mod empty_sections;
mod extract;
mod fidelity;
mod fidelity_more;
mod heading_ids;
mod jump_links;
mod links_in_text;
mod mismatched_headings;
mod ocr;
mod page_builder;
mod page_type;
mod pdf;
mod pdf_layout;
mod placeholders;
mod prose_boxes;
mod quoted_posts;
mod reviews;
mod shapes;
mod sign_in_prompts;
mod thread_furniture;
