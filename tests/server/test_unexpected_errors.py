"""An unexpected failure is logged with its request id and answered with GitLab's bare 500."""

import sqlalchemy

from tests.support import database_url_for, start_server


def test_internal_error_hides_details_and_logs_request_id(tmp_path):
    data_dir = tmp_path / "server"
    with start_server(data_dir) as server:
        with server.client() as client:
            project = client.post("/projects", json={"name": "doomed"}).json()
            # Break the database under the running server so the next query fails unexpectedly.
            url = database_url_for(data_dir) or f"sqlite:///{data_dir / 'outpost.sqlite3'}"
            engine = sqlalchemy.create_engine(url)
            with engine.begin() as connection:
                connection.execute(sqlalchemy.text("DROP TABLE project_members"))
            engine.dispose()
            response = client.get(f"/projects/{project['id']}/members")
        assert response.status_code == 500
        assert response.json() == {"message": "500 Internal Server Error"}
        request_id = response.headers["x-request-id"]
        log = server.log_text()
        assert f"unhandled error in request {request_id}" in log
        assert "project_members" in log  # the cause is in the log, not in the response
        assert "project_members" not in response.text
