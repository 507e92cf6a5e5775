//! The operations, the same for every owner once the path's owner is
//! resolved and the caller's right to manage its hooks checked (each
//! submodule does that for its kind of owner): the five of Gitea's API,
//! and a hook's deliveries, read and sent again. Test deliveries are a
//! repository's only (`repo::tests`).

pub mod org;
pub mod repo;
pub mod site;
pub mod user;

/// The handlers of one kind of owner, each resolving the path's owner
/// with the module's `owner(cx)` and calling the shared operation;
/// `@rest` leaves out `list`, for a module that lists its own way.
macro_rules! owner_handlers {
    ($route:expr) => {
        pub async fn list(cx: &Ctx) -> Result<Response> {
            super::list(cx, owner(cx).await?).await
        }
        super::owner_handlers!(@rest $route);
    };
    (@rest $route:expr) => {
        pub async fn create(cx: &Ctx) -> Result<Response> {
            super::create(cx, owner(cx).await?, $route).await
        }
        pub async fn get(cx: &Ctx) -> Result<Response> {
            super::get(cx, owner(cx).await?).await
        }
        pub async fn edit(cx: &Ctx) -> Result<Response> {
            super::edit(cx, owner(cx).await?, $route).await
        }
        pub async fn delete(cx: &Ctx) -> Result<Response> {
            super::delete(cx, owner(cx).await?).await
        }
        pub async fn deliveries(cx: &Ctx) -> Result<Response> {
            super::deliveries(cx, owner(cx).await?).await
        }
        pub async fn redeliver(cx: &Ctx) -> Result<Response> {
            super::redeliver(cx, owner(cx).await?).await
        }
    };
}
use owner_handlers;

use lambda_http::http::StatusCode;
use shared::{
    Result,
    hooks::{
        self, Hook, HookOwner, HookRecord,
        history::{self, DeliveryView},
        options::{CreateHookOption, EditHookOption, Route},
    },
    http::{Ctx, Response, paging},
    outbound,
};

/// Whether a target URL may be reached: the outbound allow-list, checked
/// without DNS (a name is checked again, resolved, when it is called).
fn target(cx: &Ctx) -> impl Fn(&str) -> hooks::Result<()> + '_ {
    |url| {
        outbound::check_url(url, &cx.config.hook_allowed_hosts)
            .map(|_| ())
            .map_err(|e| hooks::Error::Target(e.to_string()))
    }
}

fn paged(cx: &Ctx, all: &[HookRecord]) -> Result<Response> {
    let page = cx.page();
    let body: Vec<Hook> = page
        .slice(all)
        .iter()
        .map(|h| Hook::new(h, &cx.config))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    paging::set_headers(&mut res, None, all.len() as u64);
    Ok(res)
}

async fn list(cx: &Ctx, owner: HookOwner) -> Result<Response> {
    paged(cx, &hooks::list(&cx.db, &owner).await?)
}

async fn create(cx: &Ctx, owner: HookOwner, route: Route) -> Result<Response> {
    let new = cx.json::<CreateHookOption>()?.parse(route, target(cx))?;
    let hook = hooks::create(&cx.db, owner, new).await?;
    cx.reply(StatusCode::CREATED, &Hook::new(&hook, &cx.config))
}

async fn get(cx: &Ctx, owner: HookOwner) -> Result<Response> {
    let hook = hooks::find(&cx.db, &owner, cx.id_param("id")?).await?;
    cx.reply(StatusCode::OK, &Hook::new(&hook, &cx.config))
}

async fn edit(cx: &Ctx, owner: HookOwner, route: Route) -> Result<Response> {
    let id = cx.id_param("id")?;
    let edit = cx.json::<EditHookOption>()?.parse(route, target(cx))?;
    let hook = hooks::edit(&cx.db, &owner, id, edit).await?;
    cx.reply(StatusCode::OK, &Hook::new(&hook, &cx.config))
}

async fn delete(cx: &Ctx, owner: HookOwner) -> Result<Response> {
    hooks::delete(&cx.db, &owner, cx.id_param("id")?).await?;
    cx.no_content()
}

/// A page of the hook's deliveries, newest first, among the newest
/// [`history::MAX_LISTED`]; at most [`history::MAX_PAGE`] a page. They are
/// not counted: `X-HasMore` and `Link` (no `last`) say whether more follow.
async fn deliveries(cx: &Ctx, owner: HookOwner) -> Result<Response> {
    let hook = hooks::find(&cx.db, &owner, cx.id_param("id")?).await?;
    let mut page = cx.page();
    page.size = page.size.min(history::MAX_PAGE as u32);
    let (entries, more) =
        history::list(&cx.db, hook.id, page.page as usize, page.size as usize).await?;
    let body: Vec<DeliveryView> = entries
        .iter()
        .map(|e| DeliveryView::new(e, &hook))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    let link = paging::link_header_open(&cx.config, &cx.path, &cx.query, page, more);
    paging::set_open_headers(&mut res, link, more);
    Ok(res)
}

/// Sends a delivery again, as a new one: 202 with it, not yet attempted.
async fn redeliver(cx: &Ctx, owner: HookOwner) -> Result<Response> {
    let hook = hooks::find(&cx.db, &owner, cx.id_param("id")?).await?;
    let again = history::redeliver(&cx.db, &hook, cx.param("delivery")).await?;
    cx.reply(StatusCode::ACCEPTED, &DeliveryView::new(&again, &hook))
}
