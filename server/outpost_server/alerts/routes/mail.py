"""Outpost extension for administrators: whether outgoing mail is configured, and a test message.

`GET /application/mail` answers the SMTP settings without the credentials; `POST /application/mail/test`
sends a message to `to` (default: the administrator's own address) and answers 201, or 400 when mail is
off and 502 with the SMTP server's reason when sending failed.
"""

from __future__ import annotations

import asyncio
import html

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from outpost_server import http_errors
from outpost_server.auth import AdminUserDep
from outpost_server.mail import MailError, MailSettings, build_message, send_message
from outpost_server.params import Param, ParamsDep, body_params, query_params

router = APIRouter()


def _settings(request: Request) -> MailSettings | None:
    return MailSettings.from_config(request.app.state.config)


@router.get("/application/mail", openapi_extra=query_params())
def show_mail(request: Request, _admin: AdminUserDep):
    settings = _settings(request)
    if settings is None:
        return {"configured": False, "host": None, "port": None, "security": None, "from": None,
                "authentication": False}
    return {"configured": True, "host": settings.host, "port": settings.port, "security": settings.security,
            "from": settings.sender, "authentication": bool(settings.username)}


@router.post("/application/mail/test", status_code=201, openapi_extra=body_params(Param("to")))
async def send_test_mail(request: Request, admin: AdminUserDep, params: ParamsDep):
    settings = _settings(request)
    if settings is None:
        raise http_errors.bad_request("email is not configured (OUTPOST_SMTP_HOST is unset)")
    to = params.str("to") or admin.email
    message = build_message(sender=settings.sender, to=[to], subject="[Outpost] Test email",
                            text=f"This is a test email from Outpost, sent to {to} by {admin.username}.\n",
                            html=f"<p>This is a test email from Outpost, sent by {html.escape(admin.username)}.</p>")
    try:
        await asyncio.get_running_loop().run_in_executor(None, send_message, settings, message)
    except MailError as failure:
        return JSONResponse({"message": str(failure)}, status_code=502)
    return {"to": to, "delivered": True}
