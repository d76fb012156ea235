//! A `tools/call` run as a task (the tasks extension, `io.modelcontextprotocol/tasks`,
//! SEP-2663; the rules are in `running_tasks/mod.rs`): whether the call becomes a task, and starting
//! it with the context of an ordinary call ([`ToolboxServer::prepare_call`]): the task is
//! written to the server's store before its `CreateTaskResult` is sent, then run by
//! `running_tasks/worker.rs`.

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult, Task,
        TaskStatus,
    },
    service::RequestContext,
    task_manager::{DEFAULT_POLL_INTERVAL_MS, DEFAULT_TASK_TTL_MS, current_timestamp},
};
use std::{future::poll_fn, sync::Arc, task::Poll};

use toolmodel::{Toolbox, model::TaskSupport};

use super::{
    running_tasks::{
        input::{TaskHandle, TaskPeer},
        owner, store_error,
        worker::{self, Rerun, Run},
    },
    tool_call::{self, Prepared},
    toolbox_server::ToolboxServer,
};
use crate::{
    convert::message::to_wire,
    tasks::{TaskRecord, new_task_id, now_ms},
};

fn task_support(toolbox: &Toolbox, name: &str) -> Option<TaskSupport> {
    toolbox.get(name)?.execution.as_ref()?.task_support
}

/// A `tools/call` answered by the tasks extension: a task created, an
/// `InputRequiredResult` for input the handler asks before its task
/// ([`CallContext::input_before_task`](toolmodel::CallContext::input_before_task)), or
/// `-32021` for a tool that requires tasks called by a client that did not declare them.
/// `None`: an ordinary call. The task runs on `toolbox`, the one served when the call came.
pub(super) async fn call_tool(
    server: &ToolboxServer,
    toolbox: &Toolbox,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, ErrorData>> {
    if !server.tasks.active(&server.tools) {
        return None;
    }
    let support = task_support(toolbox, &request.name)?;
    let declared = context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks());
    match (support, declared) {
        (TaskSupport::Required, false) => {
            return Some(Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            )));
        }
        (TaskSupport::Optional | TaskSupport::Required, true) => {}
        _ => return None,
    }
    Some(start(server, toolbox, request, context).await)
}

/// Whether the tool says running it twice does no harm (`idempotentHint: true`): a task of
/// it is run again by another replica when its worker is lost.
fn safe_to_rerun(toolbox: &Toolbox, name: &str) -> bool {
    toolbox
        .get(name)
        .and_then(|tool| tool.annotations.as_ref())
        .and_then(|annotations| annotations.idempotent_hint)
        == Some(true)
}

/// Runs the call's handler up to its first suspension on the request (so input it asks
/// before its task goes by input rounds), then writes the task to the store and runs it as a
/// task.
async fn start(
    server: &ToolboxServer,
    toolbox: &Toolbox,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let mut start = None;
    let call = server.prepare_call(request, context, |peer| {
        let (peer, begin) = TaskPeer::new(Some(peer));
        start = Some(begin);
        Arc::new(peer)
    })?;
    let start = start.ok_or_else(|| ErrorData::internal_error("no task peer", None))?;
    let Prepared {
        cx,
        cancellation,
        version,
        rounds,
    } = call;
    let task_id = new_task_id().map_err(store_error)?;
    let rerun = safe_to_rerun(toolbox, &request.name).then(|| Rerun {
        name: request.name.to_string(),
        arguments: request.arguments.clone(),
        client_capabilities: context
            .client_capabilities()
            .and_then(|capabilities| to_wire(&capabilities).ok()),
        protocol_version: version.as_str().to_owned(),
    });
    let toolbox = toolbox.clone();
    let name = request.name.to_string();
    let arguments = request.arguments.clone();
    let handler_cx = cx.clone();
    let mut run: Run = Box::pin(async move { toolbox.call(&name, arguments, &handler_cx).await });
    // One poll with this request's waker: a handler that suspends goes on in its task, whose
    // first poll registers the task's waker (every future re-registers on each poll).
    let run: Run = match poll_fn(|waker| Poll::Ready(run.as_mut().poll(waker))).await {
        Poll::Ready(Err(toolmodel::Error::InputRequired(required))) if rounds => {
            return server.input_required(request, &cx, &required);
        }
        Poll::Ready(done) => Box::pin(std::future::ready(done)),
        Poll::Pending => run,
    };
    let now = current_timestamp();
    let task = Task::new(task_id.clone(), TaskStatus::Working, now.clone(), now)
        .with_ttl_ms(DEFAULT_TASK_TTL_MS)
        .with_poll_interval_ms(DEFAULT_POLL_INTERVAL_MS);
    let created_ms = now_ms();
    let lease = u64::try_from(server.tasks.lease().as_millis()).unwrap_or(u64::MAX);
    let mut record = TaskRecord::new(
        task.clone(),
        server.tasks.worker(),
        created_ms,
        created_ms.saturating_add(lease),
    );
    if let Some(owner) = owner::owner(tool_call::caller(context)) {
        record = record.with_owner(owner);
    }
    if let Some(rerun) = rerun.and_then(|rerun| serde_json::to_value(rerun).ok()) {
        record = record.with_rerun(rerun);
    }
    let store = server.tasks.store().clone();
    // SEP-2663: the task is durably created before the response is sent.
    store.create(record).await.map_err(store_error)?;
    let task_id: Arc<str> = Arc::from(task_id);
    start.begin(TaskHandle {
        task_id: task_id.clone(),
        store,
    });
    let run: Run = Box::pin(async move {
        // Kept while the handler runs: its peer reads the task from it.
        let _start = start;
        run.await
    });
    worker::spawn(server.tasks.clone(), task_id, run, cancellation, version);
    Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
}
