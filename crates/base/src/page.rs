//! A requested page of a listing (Gitea's `page` and `limit` after
//! clamping), as the domain reads it. Parsed from the query and turned
//! into `Link`/`X-Total-Count` headers by `http::paging`.

/// A requested page after Gitea's clamping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// 1-based page number.
    pub page: u32,
    /// Items per page.
    pub size: u32,
}

impl Page {
    /// Items to skip before this page.
    pub fn offset(&self) -> usize {
        (self.page as usize - 1) * self.size as usize
    }

    /// This page of an in-memory list (small, bounded collections only).
    pub fn slice<'a, T>(&self, all: &'a [T]) -> &'a [T] {
        let start = self.offset().min(all.len());
        let end = (start + self.size as usize).min(all.len());
        &all[start..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_skip_what_comes_before_and_slice_what_is_left() {
        let p = Page { page: 3, size: 2 };
        assert_eq!(p.offset(), 4);
        assert_eq!(p.slice(&[1, 2, 3, 4, 5]), &[5]);
        assert!(p.slice(&[1, 2]).is_empty());
    }
}
