"""Outpost extension for administrators: whether outgoing mail is configured, and a test message.

`GET /application/mail` answers the SMTP settings without the credentials; `POST /application/mail/test`
sends a message to `to` (default: the administrator's own address) and answers 201, or 400 when mail is
off and 502 with the SMTP server's reason when sending failed.
"""

from __future__ import annotations

import asyncio
import html

from fastapi import APIRouter, Response

from outpost_model.instance import MailSettings as MailSettingsEntity
from outpost_model.instance import MailTest
from outpost_server import http_errors
from outpost_server.auth import AdminUserDep
from outpost_server.deps import ConfigDep
from outpost_server.entity_json import EntityResponse
from outpost_server.mail import MailError, MailSettings, build_message, send_message
from outpost_server.params import Param, ParamsDep, body_params, query_params

router = APIRouter()


@router.get("/application/mail", openapi_extra=query_params())
def show_mail(config: ConfigDep, _admin: AdminUserDep) -> Response:
    settings = MailSettings.from_config(config)
    if settings is None:
        return EntityResponse(MailSettingsEntity(configured=False, host=None, port=None, security=None, sender=None,
                                                 authentication=False))
    return EntityResponse(MailSettingsEntity(configured=True, host=settings.host, port=settings.port,
                                             security=settings.security, sender=settings.sender,
                                             authentication=bool(settings.username)))


@router.post("/application/mail/test", status_code=201, openapi_extra=body_params(Param("to")))
async def send_test_mail(config: ConfigDep, admin: AdminUserDep, params: ParamsDep) -> Response:
    settings = MailSettings.from_config(config)
    if settings is None:
        raise http_errors.bad_request("email is not configured (OUTPOST_SMTP_HOST is unset)")
    to = params.str("to") or admin.email
    message = build_message(sender=settings.sender, to=[to], subject="[Outpost] Test email",
                            text=f"This is a test email from Outpost, sent to {to} by {admin.username}.\n",
                            html=f"<p>This is a test email from Outpost, sent by {html.escape(admin.username)}.</p>")
    try:
        await asyncio.get_running_loop().run_in_executor(None, send_message, settings, message)
    except MailError as failure:
        raise http_errors.ApiError(502, {"message": str(failure)}) from None
    return EntityResponse(MailTest(to=to, delivered=True), status_code=201)
