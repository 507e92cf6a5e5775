//! Each area's errors as the HTTP layer shows them: Gitea's messages and
//! status choices, one file per area.

mod issues;
mod labels;
mod milestones;
