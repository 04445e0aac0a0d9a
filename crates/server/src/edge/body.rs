//! The request-body deadline: the whole body must arrive within `--body-timeout-ms`
//! of the request's headers, however it is dripped (a stall timer that restarts with
//! every chunk would let a client hold a connection for hours, one byte at a time).

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use axum::BoxError;
use http_body::{Frame, SizeHint};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::Sleep;

pub(crate) use crate::error::BodyDeadlineExceeded;

/// A request body that fails with [`BodyDeadlineExceeded`] once its deadline passes.
#[derive(Debug)]
pub(crate) struct DeadlineBody {
    inner: Body,
    limit: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl DeadlineBody {
    /// `inner`, which must be complete within `limit` from now.
    pub(crate) fn new(inner: Body, limit: Duration) -> DeadlineBody {
        DeadlineBody {
            inner,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
        }
    }
}

impl http_body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|r| r.map_err(Into::into)));
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(BodyDeadlineExceeded(this.limit)))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Middleware: puts every request body that is not empty under a [`DeadlineBody`]
/// of `limit`.
pub(crate) async fn body_deadline(limit: Duration, req: Request, next: Next) -> Response {
    let req = req.map(|b| {
        if http_body::Body::is_end_stream(&b) {
            b
        } else {
            Body::new(DeadlineBody::new(b, limit))
        }
    });
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use http_body_util::BodyExt;

    #[tokio::test(start_paused = true)]
    async fn a_dripped_body_fails_at_the_deadline_not_at_a_stall() {
        // One byte every 400 ms never stalls for 1 s, but the whole body is not
        // there after 1 s: the read fails then.
        let drip = futures_util::stream::iter(0..10).then(|_| async {
            tokio::time::sleep(Duration::from_millis(400)).await;
            Ok::<_, std::io::Error>(Bytes::from_static(b"x"))
        });
        let body = DeadlineBody::new(Body::from_stream(drip), Duration::from_secs(1));
        let t0 = tokio::time::Instant::now();
        let err = body.collect().await.expect_err("the deadline passes");
        assert!(err.is::<BodyDeadlineExceeded>(), "{err}");
        assert_eq!(t0.elapsed(), Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_in_time_is_read_whole() {
        let body = DeadlineBody::new(Body::from("{\"name\":\"Ada\"}"), Duration::from_secs(1));
        let bytes = body.collect().await.unwrap().to_bytes();
        assert_eq!(&bytes[..], b"{\"name\":\"Ada\"}");
    }
}
