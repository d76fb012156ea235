//! What each route of the admin listener answers (see the [module docs](super)).

use bytes::Bytes;
use http::{HeaderValue, Method, Response, StatusCode, header};
use http_body_util::Full;
use serde_json::Value;

use super::Admin;

/// The content type of the Prometheus text exposition format.
const METRICS_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The answer to `method` on `path`.
pub(crate) async fn respond(admin: &Admin, method: &Method, path: &str) -> Response<Full<Bytes>> {
    if method != Method::GET && method != Method::HEAD {
        let mut response = text(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("Method Not Allowed: {method}; the admin routes answer GET and HEAD"),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    match path {
        "/healthz" => text(StatusCode::OK, "ok".to_owned()),
        "/readyz" => {
            let verdict = admin.checks.run().await;
            let status = if verdict.ready {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            json(status, &verdict.body)
        }
        "/metrics" => match &admin.metrics {
            Some(render) => typed(StatusCode::OK, METRICS_TYPE, render()),
            None => not_found(path),
        },
        "/status" => match admin.status_document() {
            Some(document) => json(StatusCode::OK, &document),
            None => not_found(path),
        },
        _ => not_found(path),
    }
}

fn not_found(path: &str) -> Response<Full<Bytes>> {
    text(
        StatusCode::NOT_FOUND,
        format!("Not Found: {path}; the admin routes are /healthz, /readyz, /metrics and /status"),
    )
}

fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    typed(status, "text/plain; charset=utf-8", body)
}

fn json(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    typed(status, "application/json", body.to_string())
}

fn typed(status: StatusCode, content_type: &'static str, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
