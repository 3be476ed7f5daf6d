"""Outgoing mail (sign-in links) over SMTP with aiosmtplib.

With no SMTP host configured the link is written to the server log with a warning instead, so a person
running opolyx on their own machine can still sign in.
"""

from __future__ import annotations

import logging
from email.message import EmailMessage

import aiosmtplib

from opolyx.server.settings import Settings

log = logging.getLogger("opolyx.mail")

SUBJECT = {
    "en": "Your opolyx sign-in link",
    "de": "Dein Anmeldelink für opolyx",
    "pt": "O seu link de acesso ao opolyx",
    "fr": "Votre lien de connexion à opolyx",
    "es": "Tu enlace para entrar en opolyx",
    "zh": "你的 opolyx 登录链接",
}
BODY = {
    "en": "Open this link within {minutes} minutes to sign in to opolyx:\n\n{link}\n\n"
    "If you did not ask for it, ignore this mail.",
    "de": "Öffne diesen Link innerhalb von {minutes} Minuten, um dich bei opolyx anzumelden:\n\n{link}\n\n"
    "Wenn du ihn nicht angefordert hast, ignoriere diese Mail.",
    "pt": "Abra este link dentro de {minutes} minutos para entrar no opolyx:\n\n{link}\n\n"
    "Se não o pediu, ignore este e-mail.",
    "fr": "Ouvrez ce lien dans les {minutes} minutes pour vous connecter à opolyx :\n\n{link}\n\n"
    "Si vous ne l'avez pas demandé, ignorez ce message.",
    "es": "Abre este enlace en los próximos {minutes} minutos para entrar en opolyx:\n\n{link}\n\n"
    "Si no lo has pedido, ignora este correo.",
    "zh": "请在 {minutes} 分钟内打开此链接登录 opolyx：\n\n{link}\n\n如果不是你本人请求的，请忽略此邮件。",
}


class Mailer:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def message(self, to: str, link: str, language: str) -> EmailMessage:
        lang = language if language in SUBJECT else "en"
        msg = EmailMessage()
        msg["From"] = self.settings.mail_from
        msg["To"] = to
        msg["Subject"] = SUBJECT[lang]
        msg.set_content(BODY[lang].format(minutes=self.settings.magic_link_minutes, link=link))
        return msg

    async def send_sign_in_link(self, to: str, link: str, language: str) -> None:
        s = self.settings
        if not s.smtp_host:
            log.warning("no SMTP configured (OPOLYX_SMTP_HOST): sign-in link for %s is %s", to, link)
            return
        await aiosmtplib.send(
            self.message(to, link, language),
            hostname=s.smtp_host,
            port=s.smtp_port,
            username=s.smtp_user or None,
            password=s.smtp_password or None,
            use_tls=s.smtp_security == "tls",
            start_tls=s.smtp_security == "starttls",
            timeout=s.smtp_timeout,
        )
