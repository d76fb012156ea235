//! A `tools/call` run as a task (the tasks extension, `io.modelcontextprotocol/tasks`,
//! SEP-2663; the rules are in `tasks.rs`): whether the call becomes a task, and starting it on
//! the server's [`TaskManager`] with the context of an ordinary call
//! ([`ToolboxServer::prepare_call`]).

use rmcp::{
    ErrorData, RoleServer,
    model::{CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult},
    service::RequestContext,
    task_manager::{TaskExit, TaskManager, TaskOptions},
};
use std::{
    future::{Future, poll_fn},
    pin::Pin,
    sync::Arc,
    task::Poll,
};

use toolmodel::{Toolbox, model::TaskSupport};

use super::{call::Prepared, task_input::TaskHost, toolbox_server::ToolboxServer};
use crate::convert::message::{self, error_data};

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
    let manager = server.tasks.task_manager()?;
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
    Some(start(manager, server, toolbox, request, context).await)
}

/// The handler's run: boxed, so it can move from the request into its task.
type Run =
    Pin<Box<dyn Future<Output = Result<toolmodel::CallToolResult, toolmodel::Error>> + Send>>;

/// Runs the call's handler up to its first suspension on the request (so input it asks
/// before its task goes by input rounds), then as a task.
async fn start(
    manager: &TaskManager,
    server: &ToolboxServer,
    toolbox: &Toolbox,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let mut start = None;
    let call = server.prepare_call(request, context, |peer| {
        let (host, begin) = TaskHost::new(peer);
        start = Some(begin);
        Arc::new(host)
    })?;
    let start = start.ok_or_else(|| ErrorData::internal_error("no task host", None))?;
    let Prepared {
        cx,
        cancellation,
        version,
        rounds,
    } = call;
    let toolbox = toolbox.clone();
    let name = request.name.to_string();
    let arguments = request.arguments.clone();
    let handler_cx = cx.clone();
    let mut run: Run = Box::pin(async move { toolbox.call(&name, arguments, &handler_cx).await });
    // One poll with this request's waker: a handler that suspends goes on in its task, whose
    // first poll registers the task's waker (every future re-registers on each poll).
    let run = match poll_fn(|waker| Poll::Ready(run.as_mut().poll(waker))).await {
        Poll::Ready(Err(toolmodel::Error::InputRequired(required))) if rounds => {
            return server.input_required(request, &cx, &required);
        }
        Poll::Ready(done) => Box::pin(std::future::ready(done)),
        Poll::Pending => run,
    };
    let task = manager.spawn(TaskOptions::new(), move |task| {
        start.begin(task.clone());
        Box::pin(async move {
            // Kept while the handler runs: its host reads the task from it.
            let _start = start;
            let mut run = run;
            let result = tokio::select! {
                result = &mut run => result,
                () = task.cancelled() => {
                    cancellation.cancel();
                    run.await
                }
            };
            match result {
                Ok(result) => message::result_to_rmcp(result, version).map_err(TaskExit::Error),
                Err(toolmodel::Error::Cancelled) => Err(TaskExit::Cancelled),
                Err(err) => Err(TaskExit::Error(error_data(err))),
            }
        })
    });
    Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
}
