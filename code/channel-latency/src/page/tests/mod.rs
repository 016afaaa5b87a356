//! The page's tests: a smoke run (the suite's shared one when
//! `BOOK_SMOKE_RESULTS` names it) checked, judged and rendered; damaged
//! files refused; the verdict maps on synthetic timings. Unit tests of the
//! binary, as the page is not part of the library.
mod chapter;
mod judged;
mod shapes;
